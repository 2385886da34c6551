//! `dist/manifest.json`, as the generator writes it: the format, the cache
//! policies and the media types are the contract's (`contract::manifest`,
//! `contract::media`); this module adds the hashing.

use sha2::{Digest, Sha256};

pub use contract::manifest::{
    CACHE_DISCOVERY, CACHE_DOWNLOAD, CACHE_IMMUTABLE, CACHE_PAGE, CACHE_REVALIDATE, CACHE_SERVICE,
    Encoded, FORMAT, FileEntry, MANIFEST_FILE, Manifest, cache_policy, etag_from_sha256,
};
pub use contract::media::{compressible, for_path as content_type};

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
