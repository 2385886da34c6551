//! SVG images pass through sanitised: what could run, load or reach outside
//! the file is removed, everything else is written back as it was.
//!
//! An `<img>` never runs an SVG's scripts, but the file is published and a
//! visitor may open it on its own, under the site's origin; so the file
//! itself must be inert. The rule, element by element:
//!
//! - removed with everything inside: `script`, `foreignObject` (HTML inside
//!   SVG), `iframe`, `embed`, `object`, a `style` element that imports or
//!   loads anything (`@import`, a `url(` other than `url(#…)`), and an
//!   `animate` or `set` that targets a link;
//! - removed attributes: every event handler (`on…`), every link (`href`,
//!   `xlink:href`) that is not a reference inside the file (`#id`), and any
//!   attribute whose value loads something (`url(` other than `url(#…)`);
//! - removed outright: the document type (and with it any entity), processing
//!   instructions other than the XML declaration, and comments.
//!
//! The intrinsic size is the root's `width` and `height` in pixels (a bare
//! number or `px`), else its `viewBox`'s width and height.

use quick_xml::Reader;
use quick_xml::Writer;
use quick_xml::events::{BytesStart, Event};

/// A sanitised SVG and its intrinsic size.
#[derive(Debug, Clone, PartialEq)]
pub struct Svg {
    pub bytes: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// Elements removed with their content.
const DROPPED: [&[u8]; 5] = [b"script", b"foreignobject", b"iframe", b"embed", b"object"];

/// Sanitises `bytes` (see the module's rule); an error says why the file is
/// no SVG this build can publish.
pub fn sanitise(bytes: &[u8]) -> Result<Svg, String> {
    let mut reader = Reader::from_reader(bytes);
    let mut writer = Writer::new(Vec::with_capacity(bytes.len()));
    // Depth inside a removed element (0: not inside one).
    let mut skipping = 0usize;
    let mut size = None;
    let mut in_style = false;
    loop {
        let event = reader.read_event().map_err(|e| {
            format!(
                "not well-formed XML at byte {}: {e}",
                reader.error_position()
            )
        })?;
        if skipping > 0 {
            match event {
                Event::Start(_) => skipping += 1,
                Event::End(_) => skipping -= 1,
                Event::Eof => return Err("not well-formed XML: an element is not closed".into()),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(e) if dropped(&e) => skipping = 1,
            Event::Empty(e) if dropped(&e) => {}
            Event::Start(e) => {
                if size.is_none() {
                    size = Some(root_size(&e)?);
                }
                in_style = local(e.local_name().as_ref()) == b"style";
                write(&mut writer, Event::Start(clean(&e)))?;
            }
            Event::Empty(e) => {
                if size.is_none() {
                    size = Some(root_size(&e)?);
                }
                write(&mut writer, Event::Empty(clean(&e)))?;
            }
            Event::End(e) => {
                in_style = false;
                write(&mut writer, Event::End(e))?;
            }
            Event::Text(t) if in_style && loads(&String::from_utf8_lossy(&t)) => {
                // Written empty: the `style` element stays, its rules go.
            }
            Event::CData(t) if in_style && loads(&String::from_utf8_lossy(&t)) => {}
            Event::Decl(d) => write(&mut writer, Event::Decl(d))?,
            Event::Text(t) => write(&mut writer, Event::Text(t))?,
            Event::CData(t) => write(&mut writer, Event::CData(t))?,
            Event::GeneralRef(r) => write(&mut writer, Event::GeneralRef(r))?,
            Event::DocType(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    let (width, height) = size.ok_or("no root element, expected <svg>")?;
    Ok(Svg {
        bytes: writer.into_inner(),
        width,
        height,
    })
}

fn write(writer: &mut Writer<Vec<u8>>, event: Event<'_>) -> Result<(), String> {
    writer
        .write_event(event)
        .map_err(|e| format!("cannot write SVG: {e}"))
}

/// The lower-case local name (without a namespace prefix).
fn local(name: &[u8]) -> Vec<u8> {
    name.to_ascii_lowercase()
}

/// Whether an element is removed with its content.
fn dropped(e: &BytesStart<'_>) -> bool {
    let name = local(e.local_name().as_ref());
    if DROPPED.contains(&name.as_slice()) {
        return true;
    }
    if name == b"animate" || name == b"set" {
        return e.attributes().flatten().any(|a| {
            local(a.key.local_name().as_ref()) == b"attributename"
                && String::from_utf8_lossy(&a.value)
                    .to_ascii_lowercase()
                    .contains("href")
        });
    }
    false
}

/// Whether a value loads something from outside the file: an `@import` or
/// a `url(` that is not `url(#…)`.
fn loads(value: &str) -> bool {
    let v: String = value
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    if v.contains("@import") {
        return true;
    }
    v.match_indices("url(").any(|(i, _)| {
        let rest = v[i + 4..].trim_start_matches(['"', '\'']);
        !rest.starts_with('#')
    })
}

/// The element with its unsafe attributes left out.
fn clean(e: &BytesStart<'_>) -> BytesStart<'static> {
    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    let mut out = BytesStart::new(name);
    for a in e.attributes().with_checks(false).flatten() {
        let key = local(a.key.local_name().as_ref());
        let value = String::from_utf8_lossy(&a.value);
        let unsafe_attr = key.starts_with(b"on")
            || (key == b"href" && !value.trim_start().starts_with('#'))
            || loads(&value);
        if !unsafe_attr {
            out.push_attribute((a.key.as_ref(), a.value.as_ref()));
        }
    }
    out
}

/// The root's intrinsic size: `width` and `height` in pixels, else the
/// `viewBox`'s; an error when the root is not `svg` or has neither.
fn root_size(e: &BytesStart<'_>) -> Result<(u32, u32), String> {
    if local(e.local_name().as_ref()) != b"svg" {
        return Err(format!(
            "root element <{}>, expected <svg>",
            String::from_utf8_lossy(e.name().as_ref())
        ));
    }
    let attr = |name: &[u8]| {
        e.attributes()
            .flatten()
            .find(|a| a.key.as_ref() == name)
            .map(|a| String::from_utf8_lossy(&a.value).into_owned())
    };
    let px = |v: Option<String>| {
        let v = v?;
        let n = v.trim().trim_end_matches("px").trim();
        n.parse::<f64>().ok().filter(|n| *n > 0.0)
    };
    let (w, h) = match (px(attr(b"width")), px(attr(b"height"))) {
        (Some(w), Some(h)) => (w, h),
        _ => {
            let view_box = attr(b"viewBox").ok_or(
                "no width and height in pixels and no viewBox on <svg>, expected one or the other",
            )?;
            let parts: Vec<f64> = view_box
                .split([' ', ','])
                .filter(|s| !s.is_empty())
                .filter_map(|s| s.parse().ok())
                .collect();
            match parts[..] {
                [_, _, w, h] if w > 0.0 && h > 0.0 => (w, h),
                _ => return Err(format!("viewBox `{view_box}` is not four numbers")),
            }
        }
    };
    Ok(((w.round() as u32).max(1), (h.round() as u32).max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(svg: &Svg) -> String {
        String::from_utf8(svg.bytes.clone()).unwrap()
    }

    #[test]
    fn size_from_width_and_height_or_view_box() {
        let s =
            sanitise(br#"<svg xmlns="http://www.w3.org/2000/svg" width="640px" height="360"/>"#)
                .unwrap();
        assert_eq!((s.width, s.height), (640, 360));
        let s = sanitise(
            br#"<svg xmlns="http://www.w3.org/2000/svg" width="100%" viewBox="0 0 800.4 450"><g/></svg>"#,
        )
        .unwrap();
        assert_eq!((s.width, s.height), (800, 450));
        assert!(sanitise(br#"<svg xmlns="http://www.w3.org/2000/svg"></svg>"#).is_err());
        assert!(sanitise(br#"<html width="1" height="1"></html>"#).is_err());
        assert!(sanitise(b"<svg width='1' height='1'><g></svg>").is_err());
    }

    #[test]
    fn scripts_handlers_and_outside_references_are_removed() {
        let s = sanitise(
            br##"<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY x "boom">]>
<?xml-stylesheet href="http://evil.example/x.css"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">
  <!-- a comment -->
  <script>alert(2)</script>
  <SCRIPT/>
  <foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><script>alert(3)</script></div></foreignObject>
  <style>@import url(http://evil.example/x.css);</style>
  <style>.a { fill: url(#grad); }</style>
  <a href="javascript:alert(4)"><rect class="a" width="5" height="5" onclick="alert(5)" fill="url(#grad)"/></a>
  <use xlink:href="#shape"/>
  <use xlink:href="http://evil.example/s.svg#shape"/>
  <image href="https://evil.example/track.png" width="1" height="1"/>
  <set attributeName="href" to="javascript:alert(6)"/>
  <rect style="fill: url('http://evil.example/p')" width="1" height="1"/>
  <text x="1" y="9">Nitrate &amp; pH</text>
</svg>"##,
        )
        .unwrap();
        let out = text(&s);
        for gone in [
            "script",
            "SCRIPT",
            "alert",
            "onload",
            "onclick",
            "foreignObject",
            "evil",
            "ENTITY",
            "@import",
            "comment",
            "<set",
        ] {
            assert!(!out.contains(gone), "{gone} left in {out}");
        }
        for kept in [
            r##"<use xlink:href="#shape"/>"##,
            ".a { fill: url(#grad); }",
            r##"fill="url(#grad)""##,
            "Nitrate &amp; pH",
            r#"<?xml version="1.0"?>"#,
            "<a>",
        ] {
            assert!(out.contains(kept), "{kept} missing from {out}");
        }
        assert_eq!((s.width, s.height), (10, 10));
    }

    #[test]
    fn a_clean_file_is_written_back_as_it_was() {
        let src = r##"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"><path d="M0 0h4v2z" fill="#123"/></svg>"##;
        assert_eq!(text(&sanitise(src.as_bytes()).unwrap()), src);
    }
}
