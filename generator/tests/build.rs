//! The real `generate` binary and library on the shipped sample content and
//! on a small frozen fixture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use generator::{BuildOptions, build};

use common::{copy_dir, files, repo, tree};

fn fixture() -> PathBuf {
    PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for tests"),
    )
    .join("tests/fixtures/content")
}

fn opts(content: &Path, out: &Path) -> BuildOptions {
    BuildOptions {
        content: content.to_path_buf(),
        templates: repo().join("templates"),
        out: out.to_path_buf(),
        base_url: Some("https://water.example.org".into()),
        api_origin: None,
        progress: false,
        cache: None,
        precompress: true,
        drafts: false,
        snapshots: None,
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn two_builds_are_byte_identical_and_rebuild_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("nested/b");
    build(&opts(&repo().join("content"), &a)).unwrap();
    build(&opts(&repo().join("content"), &b)).unwrap();
    let (ta, tb) = (tree(&a), tree(&b));
    assert!(ta.len() > 30, "only {} files", ta.len());
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    for (k, v) in &ta {
        assert!(tb[k] == *v, "{k} differs between builds");
    }
    let again = build(&opts(&repo().join("content"), &a)).unwrap();
    assert_eq!(again.stats.written, 0, "{}", again.line());
    assert_eq!(tree(&a), ta);
    // No absolute path of the machine leaks into the output.
    let here = repo().to_string_lossy().into_owned();
    for (k, v) in &ta {
        assert!(
            !String::from_utf8_lossy(v).contains(&here),
            "{k} mentions the build directory"
        );
    }
}

#[test]
fn a_fresh_build_takes_its_twins_from_the_cache_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let with_cache = |out: &Path| {
        let mut o = opts(&repo().join("content"), out);
        o.cache = Some(cache.clone());
        build(&o).unwrap()
    };
    let plain = tmp.path().join("plain");
    build(&opts(&repo().join("content"), &plain)).unwrap();

    // Cold: everything compressed, and kept.
    let cold = with_cache(&tmp.path().join("cold"));
    assert!(cold.stats.compressed > 50, "{}", cold.line());
    // Only what is published twice with the same bytes comes from the
    // cache (two twins each): the sample's SVG diagram, hashed under
    // /assets/images/ and as written beside its page, and the MCP server
    // card, at its two locations.
    assert_eq!(cold.stats.cached, 4, "{}", cold.line());
    // Warm, into a new folder: nothing compressed, the same bytes as a
    // build without a cache.
    let warm_out = tmp.path().join("warm");
    let warm = with_cache(&warm_out);
    assert_eq!(warm.stats.compressed, 0, "{}", warm.line());
    assert_eq!(
        warm.stats.cached,
        cold.stats.compressed + cold.stats.cached,
        "{}",
        warm.line()
    );
    assert_eq!(tree(&warm_out), tree(&plain));

    // A damaged entry is compressed again, and the output stays right.
    let entry = files(&cache)
        .into_iter()
        .find(|p| p.to_string_lossy().contains(".br-"))
        .expect("a brotli entry");
    let mut bytes = std::fs::read(&entry).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(&entry, bytes).unwrap();
    let mended_out = tmp.path().join("mended");
    let mended = with_cache(&mended_out);
    assert_eq!(mended.stats.compressed, 1, "{}", mended.line());
    assert_eq!(tree(&mended_out), tree(&plain));
}

#[test]
fn a_no_change_rebuild_renders_nothing_and_every_change_rebuilds() {
    let tmp = tempfile::tempdir().unwrap();
    let content = tmp.path().join("content");
    copy_dir(&repo().join("content"), &content);
    let out = tmp.path().join("dist");
    let with_cache = |base: &str| {
        let mut o = opts(&content, &out);
        o.cache = Some(tmp.path().join("cache"));
        o.base_url = Some(base.into());
        build(&o).unwrap()
    };
    let fresh = |name: &str, base: &str| {
        let dir = tmp.path().join(name);
        let mut o = opts(&content, &dir);
        o.base_url = Some(base.into());
        build(&o).unwrap();
        tree(&dir)
    };
    let base = "https://water.example.org";
    let first = with_cache(base);
    assert!(!first.unchanged, "{}", first.line());
    let built = tree(&out);

    let again = with_cache(base);
    assert!(again.unchanged, "{}", again.line());
    assert!(again.line().starts_with("unchanged"), "{}", again.line());
    assert!(
        again.manifest.is_none(),
        "an unchanged build reads no manifest"
    );
    assert_eq!(
        generator::output::read_manifest(&out).as_ref(),
        first.manifest.as_deref()
    );
    assert_eq!(again.stats.bytes, first.stats.bytes);
    assert_eq!(again.stats.compressed_bytes, first.stats.compressed_bytes);
    assert_eq!(again.stats.files, first.stats.files);
    assert_eq!(tree(&out), built);

    // An edited page: rendered again, and the output is a full build's.
    let page = content.join("docs/_index.md");
    let mut text = std::fs::read_to_string(&page).unwrap();
    text.push_str("\nA sentence added by the test.\n");
    std::fs::write(&page, &text).unwrap();
    let edited = with_cache(base);
    assert!(!edited.unchanged, "{}", edited.line());
    assert_eq!(tree(&out), fresh("full-edited", base));
    assert!(with_cache(base).unchanged);

    // Another option, a file of the output gone, a new content file: all
    // rebuild, each to what a full build writes.
    let other = "https://other.example.org";
    assert!(!with_cache(other).unchanged);
    assert_eq!(tree(&out), fresh("full-other", other));
    std::fs::remove_file(out.join("index.html")).unwrap();
    assert!(!with_cache(other).unchanged);
    assert_eq!(tree(&out), fresh("full-other-2", other));
    std::fs::remove_file(out.join("index.html.br")).unwrap();
    assert!(!with_cache(other).unchanged);
    assert_eq!(tree(&out), fresh("full-other-3", other));
    // The manifest changed in place, at the same size (an identity ETag
    // and a content type): rebuilt too, to the manifest a build writes.
    // (A full build ran since the last one wrote it: its modification time
    // is in another clock tick.)
    let manifest = out.join("manifest.json");
    let written = std::fs::read_to_string(&manifest).unwrap();
    let etag = read_json(&manifest)["files"]["index.html"]["etag"]
        .as_str()
        .unwrap()
        .to_owned();
    let tampered = written
        .replacen(
            &etag,
            &etag.replace(|c: char| c.is_ascii_hexdigit(), "0"),
            1,
        )
        .replacen("\"text/css;", "\"text/csv;", 1);
    assert_eq!(tampered.len(), written.len());
    assert_ne!(tampered, written);
    std::fs::write(&manifest, &tampered).unwrap();
    assert!(!with_cache(other).unchanged);
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), written);
    assert!(with_cache(other).unchanged);
    // The other precompression setting is another option too: the twins
    // go, and come back.
    let mut plain = opts(&content, &out);
    plain.cache = Some(tmp.path().join("cache"));
    plain.base_url = Some(other.into());
    plain.precompress = false;
    assert!(!build(&plain).unwrap().unchanged);
    assert!(!out.join("index.html.br").exists() && out.join("index.html").exists());
    assert!(build(&plain).unwrap().unchanged);
    assert!(!with_cache(other).unchanged);
    assert_eq!(tree(&out), fresh("full-other-4", other));
    std::fs::write(
        content.join("docs/added.md"),
        "+++\ntitle = \"Added\"\nsummary = \"A page the test adds.\"\n+++\nBody\n",
    )
    .unwrap();
    assert!(!with_cache(other).unchanged);
    assert!(out.join("docs/added/index.html").exists());
    assert_eq!(tree(&out), fresh("full-added", other));
}

#[test]
fn a_failed_build_into_a_fresh_folder_leaves_it_usable() {
    let tmp = tempfile::tempdir().unwrap();
    let content = tmp.path().join("content");
    copy_dir(&repo().join("content"), &content);
    // A licence no site.toml names fails while pages are being written.
    std::fs::write(
        content.join("docs/zz-bad-licence.md"),
        "+++\ntitle = \"T\"\nsummary = \"S\"\nlicence = \"no-such-licence\"\n+++\nBody\n",
    )
    .unwrap();
    let out = tmp.path().join("dist");
    let err = build(&opts(&content, &out)).unwrap_err();
    assert!(format!("{err:#}").contains("no-such-licence"), "{err:#}");
    assert!(
        !out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(),
        "a failed build left files behind"
    );
    // The same folder takes the next build, and an earlier build survives a
    // failed one whole.
    std::fs::remove_file(content.join("docs/zz-bad-licence.md")).unwrap();
    build(&opts(&content, &out)).unwrap();
    let good = tree(&out);
    std::fs::write(
        content.join("docs/zz-bad-licence.md"),
        "+++\ntitle = \"T\"\nsummary = \"S\"\nlicence = \"no-such-licence\"\n+++\nBody\n",
    )
    .unwrap();
    assert!(build(&opts(&content, &out)).is_err());
    assert_eq!(tree(&out), good);
}

#[test]
fn manifest_lists_every_file_with_etag_type_and_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let summary = build(&opts(&repo().join("content"), &out)).unwrap();
    let m = summary.manifest.as_deref().unwrap();
    let files = tree(&out);
    let mut listed = std::collections::BTreeSet::new();
    for (path, entry) in &m.files {
        let bytes = &files[path];
        assert_eq!(entry.size, bytes.len() as u64, "{path}");
        assert_eq!(
            entry.sha256,
            generator::manifest::sha256_hex(bytes),
            "{path}"
        );
        listed.insert(path.clone());
        for e in entry.encodings.values() {
            assert!(e.size < entry.size, "{path}: twin not smaller");
            assert_ne!(e.etag, entry.etag);
            listed.insert(e.path.clone());
        }
    }
    listed.insert("manifest.json".into());
    assert_eq!(listed, files.keys().cloned().collect());
    assert_eq!(m.files["openapi.json"].cache_control, "no-cache");
    let css: Vec<_> = m
        .files
        .keys()
        .filter(|k| k.starts_with("assets/site.") && k.ends_with(".css"))
        .collect();
    assert_eq!(css.len(), 1);
    assert!(m.files[css[0]].cache_control.contains("immutable"));
    assert!(m.files["index.html"].encodings.contains_key("br"));
    assert!(m.files["index.html"].encodings.contains_key("gzip"));
    // Hashed asset references in pages point at published files.
    let home = String::from_utf8(files["index.html"].clone()).unwrap();
    assert!(
        home.contains(&format!("/{}", css[0])),
        "home does not link {}",
        css[0]
    );
    assert!(summary.line().starts_with("built "));
}

#[test]
fn service_json_validates_against_the_built_contract() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    build(&opts(&repo().join("content"), &out)).unwrap();
    let spec = read_json(&out.join("openapi.json"));
    assert_eq!(spec["openapi"], "3.1.0");
    assert_eq!(spec["info"]["version"], "1.0.0");
    let text = std::fs::read_to_string(out.join("openapi.json")).unwrap();
    oas3::from_json(&text).expect("a 3.1-aware parser reads the contract");

    let wrapper = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/components/schemas/ServiceInformation",
        "components": spec["components"],
    });
    let validator = jsonschema::validator_for(&wrapper).unwrap();
    let service = read_json(&out.join("api/service.json"));
    let errors: Vec<String> = validator
        .iter_errors(&service)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    for member in [
        "name",
        "description",
        "services",
        "projects",
        "guardrails",
        "contact",
    ] {
        let mut broken = service.clone();
        broken.as_object_mut().unwrap().remove(member);
        assert!(
            !validator.is_valid(&broken),
            "schema accepts a missing {member}"
        );
    }
}

#[test]
fn ai_catalog_entries_resolve_to_built_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let summary = build(&opts(&repo().join("content"), &out)).unwrap();
    let catalog = read_json(&out.join(".well-known/ai-catalog.json"));
    assert_eq!(catalog["specVersion"], "1.0");
    let entries = catalog["entries"].as_array().unwrap();
    assert!(
        (4..=10).contains(&entries.len()),
        "{} entries",
        entries.len()
    );
    for e in entries {
        let Some(url) = e["url"].as_str() else {
            assert!(e["data"].is_object(), "entry without url or data: {e}");
            continue;
        };
        let path = url
            .strip_prefix("https://water.example.org/")
            .unwrap_or_else(|| panic!("{url} is not same-origin"));
        let key = if path.is_empty() || path.ends_with('/') {
            format!("{path}index.html")
        } else {
            path.to_owned()
        };
        assert!(
            summary.manifest.as_ref().unwrap().files.contains_key(&key),
            "{url} is not a built file"
        );
        assert!(e["type"].is_string() && e["identifier"].is_string(), "{e}");
    }
}

#[test]
fn every_document_has_a_markdown_twin_and_problem_pages_exist() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    let summary = build(&opts(&repo().join("content"), &out)).unwrap();
    let manifest = summary.manifest.as_ref().unwrap();
    let files = &manifest.files;
    // A moved page's old folder holds only the page that sends readers on.
    let moved = |k: &str| {
        manifest
            .redirects
            .contains_key(&format!("/{}", k.trim_end_matches("index.html")))
    };
    let pages: Vec<_> = files
        .keys()
        .filter(|k| {
            k.starts_with("docs/")
                && k.ends_with("/index.html")
                && !k.starts_with("docs/problems/")
                && !moved(k)
        })
        .collect();
    assert!(pages.len() >= 5);
    for p in pages {
        let twin = p.replace("index.html", "index.md");
        assert!(files.contains_key(&twin), "{p} has no Markdown twin");
        let md = std::fs::read_to_string(out.join(&twin)).unwrap();
        assert!(md.starts_with("# ") && md.contains("Licence:"), "{twin}");
    }
    for p in contract::ProblemCode::ALL {
        assert!(files.contains_key(&format!("docs/problems/{}/index.html", p.as_str())));
    }
}

fn generate(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_generate"))
        .args(args)
        .current_dir(cwd)
        .env_remove("GENERATE_OUT")
        .env_remove("GENERATE_CONTENT")
        .output()
        .unwrap()
}

#[test]
fn check_passes_on_sample_and_fails_on_a_planted_broken_link() {
    let tmp = tempfile::tempdir().unwrap();
    let content = tmp.path().join("content");
    copy_dir(&repo().join("content"), &content);
    let templates = repo().join("templates");
    let t = templates.to_str().unwrap();
    let out = generate(&["build", "--templates", t, "--quiet"], tmp.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(
        line.starts_with("built ") && line.contains(" in "),
        "{line}"
    );
    let ok = generate(&["check"], tmp.path());
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );

    let page = content.join("docs/planted.md");
    std::fs::write(
        &page,
        "+++\ntitle = \"Planted\"\nsummary = \"A page with broken links.\"\n+++\n\
         See [gone](/docs/no-such-page/) and [bad anchor](/docs/#no-such-anchor).\n",
    )
    .unwrap();
    let out = generate(&["build", "--templates", t, "--quiet"], tmp.path());
    assert!(out.status.success());
    let bad = generate(&["check"], tmp.path());
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("docs/planted/index.html: broken link `/docs/no-such-page/`"),
        "{err}"
    );
    assert!(err.contains("no element with id `no-such-anchor`"), "{err}");
}

#[test]
fn bad_content_names_file_line_and_expectation() {
    let tmp = tempfile::tempdir().unwrap();
    let content = tmp.path().join("content");
    copy_dir(&repo().join("content"), &content);
    let projects = content.join("service/projects.toml");
    let text = std::fs::read_to_string(&projects).unwrap();
    let (line_no, _) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("status"))
        .expect("a status line");
    let broken: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == line_no {
                "status = \"finished\"".into()
            } else {
                l.to_owned()
            }
        })
        .collect();
    std::fs::write(&projects, broken.join("\n")).unwrap();
    let err = build(&opts(&content, &tmp.path().join("dist")))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(&format!("projects.toml:{}:", line_no + 1)),
        "error does not name file and line {}: {err}",
        line_no + 1
    );
    assert!(
        err.contains("finished") && err.contains("expected"),
        "{err}"
    );

    // An unknown field in front matter names the document's line.
    std::fs::write(&projects, text).unwrap();
    std::fs::write(
        content.join("docs/typo.md"),
        "+++\ntitle = \"T\"\nsummary = \"S\"\nauthr = \"x\"\n+++\nBody\n",
    )
    .unwrap();
    let err = build(&opts(&content, &tmp.path().join("dist")))
        .unwrap_err()
        .to_string();
    assert!(err.contains("typo.md:4:"), "{err}");
    assert!(err.contains("unknown field `authr`"), "{err}");
}

#[test]
fn fixture_pages_match_snapshots() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    build(&opts(&fixture(), &out)).unwrap();
    let read = |p: &str| std::fs::read_to_string(out.join(p)).unwrap();
    insta::assert_snapshot!("fixture_home", read("index.html"));
    insta::assert_snapshot!("fixture_page", read("docs/guide/index.html"));
    insta::assert_snapshot!("fixture_twin", read("docs/guide/index.md"));
    insta::assert_snapshot!("fixture_llms", read("llms.txt"));
    insta::assert_snapshot!("fixture_security", read(".well-known/security.txt"));
    insta::assert_json_snapshot!("fixture_service", read_json(&out.join("api/service.json")));
    insta::assert_json_snapshot!(
        "fixture_ai_catalog",
        read_json(&out.join(".well-known/ai-catalog.json"))
    );
    insta::assert_json_snapshot!(
        "fixture_api_catalog",
        read_json(&out.join(".well-known/api-catalog"))
    );
}

/// `/.well-known/security.txt` of the sample content, field by field
/// against RFC 9116: line syntax (§2.2), the fields it defines (§2.5), a
/// `Contact` URI of an allowed scheme (§2.5.3), `Expires` once, an RFC 3339
/// date within a year of the content's date (§2.5.5), `Preferred-Languages`
/// at most once with language tags (§2.5.8), a `Canonical` that names where
/// the file is served (§2.5.2), and `text/plain; charset=utf-8` (§3).
#[test]
fn security_txt_follows_rfc_9116() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("dist");
    build(&opts(&repo().join("content"), &out)).unwrap();
    let text = std::fs::read_to_string(out.join(".well-known/security.txt")).unwrap();
    let manifest = read_json(&out.join("manifest.json"));
    assert_eq!(
        manifest["files"][".well-known/security.txt"]["content_type"],
        "text/plain; charset=utf-8"
    );
    assert!(text.ends_with('\n'));
    let known = [
        "acknowledgments",
        "canonical",
        "contact",
        "encryption",
        "expires",
        "hiring",
        "policy",
        "preferred-languages",
    ];
    let mut fields: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        assert!(!line.chars().any(|c| c.is_control()), "{line:?}");
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, value) = line.split_once(':').expect("a `name: value` line");
        assert!(
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
            "field name {name:?}"
        );
        let name = name.to_ascii_lowercase();
        assert!(known.contains(&name.as_str()), "unknown field {name}");
        let value = value.strip_prefix(' ').unwrap_or(value);
        assert!(!value.is_empty() && value.trim() == value, "{line:?}");
        fields.entry(name).or_default().push(value.to_owned());
    }
    let https = |uri: &str| uri.starts_with("https://") && uri.len() > "https://".len();
    let contacts = &fields["contact"];
    assert!(!contacts.is_empty());
    for c in contacts {
        let ok = https(c)
            || c.strip_prefix("mailto:").is_some_and(|a| {
                a.split_once('@')
                    .is_some_and(|(l, d)| !l.is_empty() && d.contains('.'))
            })
            || c.starts_with("tel:+");
        assert!(
            ok,
            "Contact {c}: a web URI must be https; else mailto: or tel:"
        );
    }
    for field in [
        "encryption",
        "policy",
        "acknowledgments",
        "hiring",
        "canonical",
    ] {
        for uri in fields.get(field).into_iter().flatten() {
            assert!(https(uri), "{field} {uri} is not https");
        }
    }
    let expires = &fields["expires"];
    assert_eq!(expires.len(), 1, "Expires once");
    let e = expires[0].as_bytes();
    assert!(
        e.len() == 20
            && e[19] == b'Z'
            && [4, 7].iter().all(|&i| e[i] == b'-')
            && e[10] == b'T'
            && [13, 16].iter().all(|&i| e[i] == b':')
            && e.iter()
                .enumerate()
                .all(|(i, b)| [4, 7, 10, 13, 16, 19].contains(&i) || b.is_ascii_digit()),
        "Expires {} is not an RFC 3339 UTC date-time",
        expires[0]
    );
    // Within a year of the content's date, and after it.
    let site = std::fs::read_to_string(repo().join("content/site.toml")).unwrap();
    let updated = site
        .lines()
        .find_map(|l| l.strip_prefix("updated = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("site.toml has an updated date");
    let day = |s: &str| -> i64 {
        let (y, m, d) = (&s[0..4], &s[5..7], &s[8..10]);
        let (y, m, d): (i64, i64, i64) =
            (y.parse().unwrap(), m.parse().unwrap(), d.parse().unwrap());
        // Days from 0000-03-01, enough to compare and subtract.
        let (y, m) = if m <= 2 { (y - 1, m + 12) } else { (y, m) };
        365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d
    };
    let ahead = day(&expires[0]) - day(updated);
    assert!(
        (1..=366).contains(&ahead),
        "Expires is {ahead} days after the content's date"
    );
    if let Some(languages) = fields.get("preferred-languages") {
        assert_eq!(languages.len(), 1, "Preferred-Languages at most once");
        for tag in languages[0].split(',').map(str::trim) {
            let mut parts = tag.split('-');
            let primary = parts.next().unwrap();
            assert!(
                (2..=3).contains(&primary.len())
                    && primary.bytes().all(|b| b.is_ascii_alphabetic()),
                "language tag {tag}"
            );
            assert!(parts.all(
                |p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric())
            ));
        }
    }
    let canonical = &fields["canonical"];
    assert!(
        canonical.contains(&"https://water.example.org/.well-known/security.txt".to_owned()),
        "{canonical:?}"
    );
}
