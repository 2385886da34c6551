//! Images through the real `generate` binary, on a copy of the sample
//! content with a page of images beside its Markdown file.
//!
//! - A PNG, a JPEG and an SVG beside the page become `<img>` elements with
//!   their intrinsic `width` and `height`; a raster image offers at least
//!   two widths in `srcset`, a PNG a WebP `<source>` when every WebP copy
//!   is smaller, a JPEG none; the first image loads at once, the others
//!   lazily.
//! - Every copy has a content-hashed name under `/assets/images/`, is in
//!   `dist/` and in the manifest with the immutable cache policy; the file
//!   as written is also beside the page (for the Markdown twin).
//! - A titled image alone in its paragraph is a figure with a caption; a
//!   decorative one (empty alt, title "decorative") has `alt=""`.
//! - The SVG is published without its script and event handlers.
//! - An image without alt text, and an image whose file is missing, fail
//!   the build naming the file and the line.

use std::path::Path;

use common::sample_site::SampleSite as Site;

const PAGE: &str = "docs/platform/gallery/";

const SVG: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 150" onload="alert(1)">
<script>alert(2)</script>
<rect width="300" height="150" fill="#3b6e91" onclick="alert(3)"/>
</svg>
"##;

/// A photograph-like JPEG (noise: lossless WebP cannot beat it).
fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let mut seed = 7u32;
    let img = image::RgbImage::from_fn(width, height, |x, y| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        image::Rgb([(x % 256) as u8, (y % 256) as u8, (seed >> 24) as u8])
    });
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80)
        .encode_image(&img)
        .unwrap();
    out
}

/// The sample site with `platform/gallery.md` (`body` after its front
/// matter) and its images beside it.
fn gallery(body: &str) -> Site {
    let site = Site::new();
    let folder = site.content().join("docs/platform");
    std::fs::copy(
        site.content()
            .join("docs/platform/reports/bloom-alerts-2026.png"),
        folder.join("chart.png"),
    )
    .unwrap();
    std::fs::write(folder.join("photo.jpg"), jpeg(1200, 800)).unwrap();
    std::fs::write(folder.join("diagram.svg"), SVG).unwrap();
    site.write(
        "platform/gallery.md",
        &format!("+++\ntitle = \"Gallery\"\nsummary = \"Images.\"\n+++\n{body}"),
    );
    site
}

const BODY: &str = "\nThe chart:\n\n\
    ![Alerts by reservoir](chart.png \"Alerts and confirmations\")\n\n\
    A photograph ![Shore at Oostplas](photo.jpg) inline.\n\n\
    ![Blue rectangle](diagram.svg)\n\n\
    ![](diagram.svg \"decorative\")\n\n\
    ![The card](/files/img/social-card.png)\n";

fn manifest(dist: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dist.join("manifest.json")).unwrap()).unwrap()
}

/// The `<img …>` and `<source …>` tags of a page's main text, in order.
fn tags<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    html.match_indices(&open)
        .map(|(i, _)| &html[i..i + html[i..].find('>').unwrap() + 1])
        .collect()
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    Some(&tag[i..i + tag[i..].find('"').unwrap()])
}

/// The URLs of a `srcset` with their widths.
fn srcset(set: &str) -> Vec<(String, u32)> {
    set.split(", ")
        .map(|c| {
            let (url, w) = c.rsplit_once(' ').unwrap();
            (url.to_owned(), w.trim_end_matches('w').parse().unwrap())
        })
        .collect()
}

#[test]
fn images_get_sizes_widths_webp_and_hashed_names() {
    let site = gallery(BODY);
    site.built();
    let dist = site.dist();
    let files = &manifest(&dist)["files"];
    let html = site.read(&format!("{PAGE}index.html"));
    let main = &html[html.find("<main").unwrap()..];
    // The page's own images (the site logo is in the header, before main).
    let imgs: Vec<&str> = tags(main, "img")
        .into_iter()
        .filter(|t| attr(t, "src").is_some_and(|s| s.starts_with("/assets/images/")))
        .collect();
    assert_eq!(imgs.len(), 5, "{imgs:#?}");
    let [chart, photo, svg, decorative, card] = imgs[..] else {
        unreachable!()
    };

    // Sizes and lazy loading: the first image at once, the rest lazily.
    assert_eq!(attr(chart, "width"), Some("960"), "{chart}");
    assert_eq!(attr(chart, "height"), Some("480"), "{chart}");
    assert_eq!(attr(chart, "loading"), None, "{chart}");
    assert_eq!(attr(photo, "width"), Some("1200"));
    assert_eq!(attr(photo, "height"), Some("800"));
    assert_eq!(attr(svg, "width"), Some("300"));
    assert_eq!(attr(svg, "height"), Some("150"));
    for later in [photo, svg, decorative, card] {
        assert_eq!(attr(later, "loading"), Some("lazy"), "{later}");
        assert!(attr(later, "alt").is_some(), "{later}");
    }
    assert_eq!(attr(decorative, "alt"), Some(""));
    assert_eq!(attr(photo, "alt"), Some("Shore at Oostplas"));
    assert_eq!(attr(card, "width"), Some("1200"), "{card}");

    // The titled image alone in its paragraph is a figure.
    assert!(
        main.contains("<figcaption>Alerts and confirmations</figcaption></figure>"),
        "{main}"
    );
    assert!(!main.contains("<p><figure>"), "{main}");
    assert!(main.contains("<p>A photograph <img "), "{main}");

    // Widths: at least two, the full one last, each file there, hashed and
    // cached for good.
    let mut published = Vec::new();
    for (img, widths) in [(chart, vec![480, 960]), (photo, vec![480, 960, 1200])] {
        let set = srcset(attr(img, "srcset").unwrap());
        assert_eq!(
            set.iter().map(|(_, w)| *w).collect::<Vec<_>>(),
            widths,
            "{img}"
        );
        assert_eq!(attr(img, "src"), Some(set.last().unwrap().0.as_str()));
        assert!(attr(img, "sizes").is_some(), "{img}");
        published.extend(set.into_iter().map(|(url, _)| url));
    }
    // The chart's WebP copies are smaller (and offered); the photo has none.
    let source = tags(main, "source");
    assert_eq!(source.len(), 1, "{source:?}");
    assert_eq!(attr(source[0], "type"), Some("image/webp"));
    let webp = srcset(attr(source[0], "srcset").unwrap());
    assert_eq!(webp.iter().map(|(_, w)| *w).collect::<Vec<_>>(), [480, 960]);
    for ((w, _), (p, _)) in webp.iter().zip(&srcset(attr(chart, "srcset").unwrap())) {
        let (w, p) = (dist.join(&w[1..]), dist.join(&p[1..]));
        assert!(
            std::fs::metadata(&w).unwrap().len() < std::fs::metadata(&p).unwrap().len(),
            "{} not smaller than {}",
            w.display(),
            p.display()
        );
    }
    published.extend(webp.into_iter().map(|(url, _)| url));
    published.push(attr(svg, "src").unwrap().to_owned());
    for url in &published {
        let path = url
            .strip_prefix("/assets/images/")
            .expect("under /assets/images/");
        let (stem, _) = path.split_once('.').unwrap();
        let hash = path[stem.len() + 1..].split(['.', '-']).next().unwrap();
        assert_eq!(hash.len(), 16, "{url}: a 16-digit hash");
        assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{url}");
        assert!(dist.join(&url[1..]).is_file(), "{url} in dist/");
        assert_eq!(
            files[&url[1..]]["cache_control"],
            "public, max-age=31536000, immutable",
            "{url}"
        );
    }
    let photo_webp = std::fs::read_dir(dist.join("assets/images"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("photo.") && n.ends_with(".webp"))
        .count();
    assert_eq!(photo_webp, 0, "no WebP copy of the photograph");

    // The files as written, beside the page, for the twin's relative links.
    for name in ["chart.png", "photo.jpg", "diagram.svg"] {
        assert!(
            dist.join(PAGE).join(name).is_file(),
            "{name} beside the page"
        );
        assert!(files[format!("{PAGE}{name}")].is_object(), "{name} listed");
    }
    let twin = site.read(&format!("{PAGE}index.md"));
    assert!(twin.contains("](chart.png"), "{twin}");

    // The SVG without its script and handlers, both copies.
    for svg_file in [
        dist.join(&attr(svg, "src").unwrap()[1..]),
        dist.join(PAGE).join("diagram.svg"),
    ] {
        let text = std::fs::read_to_string(svg_file).unwrap();
        assert!(!text.contains("script"), "{text}");
        assert!(
            !text.contains("onload") && !text.contains("onclick"),
            "{text}"
        );
        assert!(!text.contains("alert"), "{text}");
        assert!(text.contains("<rect width=\"300\""), "{text}");
    }

    // Every link and image resolves.
    let checked = site.check();
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[test]
fn an_image_without_alt_text_fails_naming_file_and_line() {
    // Front matter is lines 1 to 4; the image is on line 10.
    let site = gallery("\nText.\n\nMore text.\n\n![](chart.png)\n");
    let err = site.refused();
    assert!(
        err.contains("gallery.md:10: image chart.png: no alt text"),
        "{err}"
    );
    assert!(err.contains("\"decorative\""), "{err}");
}

#[test]
fn a_missing_image_fails_naming_file_and_line() {
    let site = gallery("\n![A kit](kit.png)\n");
    let err = site.refused();
    assert!(
        err.contains("gallery.md:6: image kit.png: no file kit.png"),
        "{err}"
    );
}
