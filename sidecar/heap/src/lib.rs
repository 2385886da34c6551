//! The sidecar's heap, handed back after a release is loaded.
//!
//! Loading a release parses its manifest (megabytes of JSON at 10,000
//! pages) and builds the search index: tens of megabytes that live only
//! while loading. glibc's allocator keeps such memory for reuse, and after
//! freeing one large block it raises its own threshold for giving memory
//! back, so a sidecar at rest went on holding what its start-up had needed
//! (decision 0259). [`release_free`] asks it to return every free page now.
//!
//! This is the sidecar's only foreign call; the crate exists so that the
//! sidecar itself keeps `#![forbid(unsafe_code)]`.

#![deny(unsafe_op_in_unsafe_fn)]

/// Returns the allocator's free pages to the kernel: `true` when some were
/// returned. Does nothing (and says `false`) where the C library is not
/// glibc.
pub fn release_free() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `malloc_trim` takes no pointer and touches no memory the
        // caller owns: it locks each arena in turn and advises the kernel
        // that the free pages in it may be dropped. Any thread may call it
        // at any time.
        unsafe { libc::malloc_trim(0) != 0 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    /// Memory freed in the middle of the heap (a later block still held
    /// keeps the heap's top in place) goes back to the kernel.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn free_pages_go_back() {
        // Blocks under glibc's mmap threshold, so they come from the heap.
        let mut blocks: Vec<Vec<u8>> = (0..256).map(|i| vec![i as u8; 64 << 10]).collect();
        let keep = blocks.pop();
        drop(blocks);
        assert!(super::release_free(), "16 MiB freed below a held block");
        assert_eq!(keep.map(|b| b[0]), Some(255));
    }
}
