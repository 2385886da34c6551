//! Tests of the nginx writer.
use super::*;
use crate::host_config::fixture;
use crate::host_config::kept_assets::extension;

#[test]
fn snapshot() {
    insta::assert_snapshot!(render(&fixture::plan()).unwrap());
}

#[test]
fn every_sidecar_path_is_proxied_and_every_file_listed() {
    let plan = fixture::plan();
    let conf = render(&plan).unwrap();
    for path in plan.sidecar_paths() {
        assert!(
            conf.contains(&format!(
                "location = {path} {{ proxy_pass http://{UPSTREAM}; }}"
            )),
            "{path}"
        );
    }
    // Listed by name, or a page or an asset that the patterns give its
    // values (patterns.rs): the fixture's page with a twin and its asset.
    let mut by_pattern = Vec::new();
    for f in &plan.files {
        for u in &f.urls {
            if !conf.contains(&format!("    \"{u}\" \"{}\";", f.cache_control)) {
                by_pattern.push(u.as_str());
            }
        }
    }
    assert_eq!(
        by_pattern,
        [
            "/assets/site.0123456789abcdef.css",
            "/docs/about/",
            "/docs/about/index.html",
            "/docs/about/index.md"
        ]
    );
    assert!(conf.contains(&format!(
        "    {} {};\n",
        patterns::PAGE,
        q(contract::manifest::CACHE_PAGE)
    )));
    assert!(conf.contains("client_max_body_size 65536;"));
    assert!(conf.contains("location = \"/.well-known/api-catalog\" {\n        types { }\n        default_type \"application/linkset+json; profile=\\\"https://www.rfc-editor.org/info/rfc9727\\\"\";"));
    assert!(!conf.contains("manifest.json\""));
}

/// The official nginx image has no brotli module: by default the twins
/// go out through gzip_static alone; brotli_static only when asked for.
#[test]
fn brotli_static_only_when_the_module_is_said_to_be_there() {
    let mut plan = fixture::plan();
    let conf = render(&plan).unwrap();
    assert!(conf.contains("\n    gzip_static on;\n"));
    assert!(!conf.contains("brotli_static on;"));
    assert!(!conf.contains("load_module"));
    assert!(!conf.contains("gzip on;"));
    plan.set_compression(
        crate::host_config::Host::Nginx,
        crate::host_config::Compression::Auto,
        true,
    )
    .unwrap();
    let conf = render(&plan).unwrap();
    assert!(conf.contains("\n    gzip_static on;\n    brotli_static on;\n"));
    assert!(conf.contains("load_module modules/ngx_http_brotli_static_module.so;"));
}

#[test]
fn snapshot_on_the_fly() {
    insta::assert_snapshot!(render(&fixture::plan_without_twins()).unwrap());
}

/// On the fly: gzip in every location of files and nowhere else (the
/// sidecar's answers pass as they are), for the compressible types of
/// dist/, whole values as its types table gives them; Vary on exactly
/// those files.
#[test]
fn on_the_fly_gzips_files_only() {
    let plan = fixture::plan_without_twins();
    let conf = render(&plan).unwrap();
    assert!(!conf.contains("gzip_static") && !conf.contains("brotli_static"));
    assert!(conf.contains("\n    gzip off;\n"));
    assert!(
        conf.contains(
            "    gzip_types \"application/json\" \"text/css; charset=utf-8\" \"text/csv; charset=utf-8\" \"text/html; charset=utf-8\" \"text/markdown; charset=utf-8\";\n"
        ),
        "{conf}"
    );
    // Its type is too long for gzip_types: its own location compresses it.
    assert!(conf.contains("default_type \"application/linkset+json; profile=\\\"https://www.rfc-editor.org/info/rfc9727\\\"\";\n        gzip on;\n        gzip_types *;\n"), "{conf}");
    assert!(conf.contains("gzip_min_length 256;"));
    let mut gzipped = 0;
    for block in conf.split("\n    location ").skip(1) {
        let block = block.split("\n    }").next().unwrap();
        if block.contains("add_header Cache-Control $pis_cache_control") {
            assert!(block.contains("gzip on;"), "{block}");
            gzipped += 1;
        } else {
            assert!(!block.contains("gzip on;"), "{block}");
        }
    }
    // `location /`, `/assets/` and the files of the API space or of their
    // own type.
    assert_eq!(
        gzipped, 4,
        "location /, /assets/, api/service.json, the api-catalog"
    );
    let vary = conf
        .split("map $uri $pis_file_vary {")
        .nth(1)
        .unwrap()
        .split('}')
        .next()
        .unwrap();
    for f in &plan.files {
        if !vary.contains(&format!("    \"{}\" ", f.urls[0])) && f.vary(plan.compress).is_some() {
            // A page or an asset by pattern (patterns.rs).
            assert!(
                f.key.starts_with("assets/")
                    || f.key.ends_with("index.md")
                    || f.key.ends_with("index.html"),
                "{}",
                f.key
            );
            continue;
        }
        for u in &f.urls {
            let entry = format!("    \"{u}\" \"");
            match f.vary(plan.compress) {
                Some(v) => assert!(vary.contains(&format!("{entry}{v}\";")), "{u}"),
                None => assert!(!vary.contains(&entry), "{u}"),
            }
            assert_eq!(
                vary.contains(&format!("{entry}accept-encoding")),
                f.on_the_fly(),
                "{u}"
            );
        }
    }
}

/// A page URL is rewritten to its twin, when it has one on disk, for a
/// request naming Markdown, in `location /` after the method checks; the
/// pages with twins and the twins vary by Accept (by pattern), the home
/// page of the fixture, without a twin, does not (by name).
#[test]
fn markdown_on_request() {
    let plan = fixture::plan();
    let conf = render(&plan).unwrap();
    assert!(
        conf.contains("    \"~^1:(?<pis_page>/(.+/)?)$\" \"${pis_page}index.md\";\n"),
        "{conf}"
    );
    let root = conf.split("\n    location / {\n").nth(1).unwrap();
    let root = root.split("\n    }\n").next().unwrap();
    let rewrite = root
        .find("if (-f $document_root$pis_twin) { rewrite ^ $pis_twin last; }")
        .unwrap();
    assert!(root.find("return 405;").unwrap() < rewrite, "{root}");
    assert!(conf.contains(&format!(
        "    {} \"accept-encoding, accept\";\n",
        patterns::PAGE
    )));
    assert!(conf.contains("    \"/index.html\" \"accept-encoding\";\n"));
}

/// A folder's URL without its slash: a 308 to the folder from `location /`
/// when it holds an index.html, before anything else, with the headers of
/// the sidecar's redirects; what no file is (a folder without index.html)
/// is the 404 page.
#[test]
fn folders_by_what_is_on_disk() {
    let conf = render(&fixture::plan()).unwrap();
    let root = conf.split("\n    location / {\n").nth(1).unwrap();
    assert!(
        root.starts_with(
            "        if (-f $request_filename$pis_folder_index) {\n            \
             add_header Cache-Control \"public, max-age=3600\" always;\n"
        ),
        "{root}"
    );
    assert!(root.contains("            return 308 \"$pis_path/$is_args$args\";\n        }\n        if ($pis_file_cache = \"\") { return 404; }\n        if (!-f $request_filename$pis_index) { return 404; }\n"), "{root}");
    assert!(
        !conf.contains("location = \"/docs/about\""),
        "no redirect by name"
    );
}

/// Adding, removing or renaming pages with their twins and hashed assets
/// writes the same configuration: a release that does so needs no reload
/// of the front (decision 0204). A file the patterns cannot give its
/// values (here a page without a twin) is listed by name.
#[test]
fn pages_and_assets_added_write_the_same_configuration() {
    let before = render(&fixture::plan()).unwrap();
    let mut grown = fixture::manifest();
    let page = grown.files["docs/about/index.html"].clone();
    let twin = grown.files["docs/about/index.md"].clone();
    let asset = grown.files["assets/site.0123456789abcdef.css"].clone();
    grown
        .files
        .insert("docs/news/week-48/index.html".into(), page.clone());
    grown
        .files
        .insert("docs/news/week-48/index.md".into(), twin);
    grown.files.remove("assets/site.0123456789abcdef.css");
    grown
        .files
        .insert("assets/site.fedcba9876543210.css".into(), asset);
    assert_eq!(render(&fixture::plan_of(&grown)).unwrap(), before);

    grown.files.insert("docs/lonely/index.html".into(), page);
    let conf = render(&fixture::plan_of(&grown)).unwrap();
    assert!(
        conf.contains("    \"/docs/lonely/\" \"accept-encoding\";\n"),
        "{conf}"
    );
}

#[test]
fn extensions() {
    assert_eq!(extension("a/b.HTML").as_deref(), Some("html"));
    assert_eq!(extension(".well-known/api-catalog"), None);
    assert_eq!(extension("a/.hidden"), None);
}

/// The release step signals the front only when its configuration
/// changed (`scripts/release --if-changed`): a release that edits files
/// must write the same bytes. What a file holds (size, hashes, ETags)
/// stays out of the configuration, except on which side of
/// ON_THE_FLY_FROM its size lies (whether it is compressed, hence Vary).
#[test]
fn edited_files_write_the_same_configuration() {
    let mut edited = fixture::manifest_without_twins();
    for (n, entry) in edited.files.values_mut().enumerate() {
        entry.size += 1 + n as u64;
        entry.sha256 = format!("{:064x}", n + 1);
        entry.etag = format!("\"{:032x}\"", n + 1);
    }
    let before = render(&fixture::plan_without_twins()).unwrap();
    assert_eq!(render(&fixture::plan_of(&edited)).unwrap(), before);

    let mut twins = fixture::manifest();
    for entry in twins.files.values_mut() {
        entry.size += 7;
        for encoded in entry.encodings.values_mut() {
            encoded.size += 3;
            encoded.etag = "\"edited\"".to_owned();
        }
    }
    assert_eq!(
        render(&fixture::plan_of(&twins)).unwrap(),
        render(&fixture::plan()).unwrap()
    );

    // A small file grown past ON_THE_FLY_FROM is compressed from then on.
    let mut grown = fixture::manifest_without_twins();
    grown.files.get_mut("robots.txt").unwrap().size = crate::host_config::ON_THE_FLY_FROM;
    assert_ne!(render(&fixture::plan_of(&grown)).unwrap(), before);
}
