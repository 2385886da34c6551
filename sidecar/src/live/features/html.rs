//! The HTML twin of every OGC API – Features document: its title and
//! description, its links, and a table of its collections, features or
//! queryables.

use std::fmt::Write;

use serde_json::Value;

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn links(o: &mut String, links: &Value) {
    let Some(links) = links.as_array() else {
        return;
    };
    o.push_str("<h2>Links</h2>\n<ul>\n");
    for l in links {
        let _ = writeln!(
            o,
            "<li><a href=\"{}\" rel=\"{}\" type=\"{}\">{}</a> ({})</li>",
            escape(&text(&l["href"])),
            escape(&text(&l["rel"])),
            escape(&text(&l["type"])),
            escape(&text(&l["title"])),
            escape(&text(&l["type"])),
        );
    }
    o.push_str("</ul>\n");
}

/// A table with one row per object and one column per key of `columns`.
fn table(o: &mut String, rows: &[&Value], columns: &[String]) {
    o.push_str("<table>\n<thead><tr>");
    for c in columns {
        let _ = write!(o, "<th scope=\"col\">{}</th>", escape(c));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        o.push_str("<tr>");
        for c in columns {
            let _ = write!(o, "<td>{}</td>", escape(&text(&row[c])));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
}

/// Features as rows: id, longitude, latitude, then their properties.
fn features(o: &mut String, features: &[Value], path: &str) {
    let Some(first) = features.first() else {
        o.push_str("<p>No features match.</p>\n");
        return;
    };
    let keys: Vec<String> = first["properties"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let items = path.trim_end_matches('/');
    let items = if items.ends_with("/items") {
        items.to_owned()
    } else {
        items.rsplit_once('/').map_or(items, |(a, _)| a).to_owned()
    };
    o.push_str("<table>\n<thead><tr><th scope=\"col\">id</th><th scope=\"col\">longitude</th><th scope=\"col\">latitude</th>");
    for k in &keys {
        let _ = write!(o, "<th scope=\"col\">{}</th>", escape(k));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for f in features {
        let id = text(&f["id"]);
        let coords = &f["geometry"]["coordinates"];
        let _ = write!(
            o,
            "<tr><td><a href=\"{}/{}?f=html\">{}</a></td><td>{}</td><td>{}</td>",
            escape(&items),
            escape(&id),
            escape(&id),
            text(&coords[0]),
            text(&coords[1]),
        );
        for k in &keys {
            let _ = write!(o, "<td>{}</td>", escape(&text(&f["properties"][k])));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
}

/// The page of `doc`, served at `path`.
pub(super) fn page(doc: &Value, path: &str) -> String {
    let title = doc["title"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| doc["id"].as_str().map(|id| format!("Feature {id}")))
        .unwrap_or_else(|| {
            if doc["type"] == "FeatureCollection" {
                "Features".to_owned()
            } else if doc.get("conformsTo").is_some() {
                "Conformance classes".to_owned()
            } else {
                "Feature collections".to_owned()
            }
        });
    let title = match doc["id"] {
        Value::Number(ref n) => format!("Feature {n}"),
        _ => title,
    };
    let mut o = String::with_capacity(4096);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n</head>\n<body>\n<main>\n<h1>{t}</h1>\n",
        t = escape(&title)
    );
    if let Some(d) = doc["description"].as_str() {
        let _ = writeln!(o, "<p>{}</p>", escape(d));
    }
    if let Some(classes) = doc["conformsTo"].as_array() {
        o.push_str("<ul>\n");
        for c in classes {
            let _ = writeln!(o, "<li>{}</li>", escape(&text(c)));
        }
        o.push_str("</ul>\n");
    }
    if let Some(cs) = doc["collections"].as_array() {
        let rows: Vec<&Value> = cs.iter().collect();
        table(
            &mut o,
            &rows,
            &["id".into(), "title".into(), "description".into()],
        );
    }
    if doc["type"] == "object"
        && let Some(props) = doc["properties"].as_object()
    {
        // A queryables schema: one row per property, with its values.
        let rows: Vec<Value> = props
            .iter()
            .map(|(name, p)| {
                let values = p.get("enum").or_else(|| p.get("pattern")).cloned();
                serde_json::json!({ "name": name, "title": p["title"], "values": values })
            })
            .collect();
        let rows: Vec<&Value> = rows.iter().collect();
        table(
            &mut o,
            &rows,
            &["name".into(), "title".into(), "values".into()],
        );
    }
    if let Some(fs) = doc["features"].as_array() {
        let _ = writeln!(o, "<p>{} features on this page.</p>", fs.len());
        features(&mut o, fs, path);
    }
    if doc["type"] == "Feature" {
        features(&mut o, std::slice::from_ref(doc), path);
    }
    if let Some(a) = doc["attribution"].as_str() {
        let _ = writeln!(o, "<p>{}</p>", escape(a));
    }
    links(&mut o, &doc["links"]);
    o.push_str("</main>\n</body>\n</html>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_escaped_and_features_link_to_their_pages() {
        let doc = json!({
            "type": "FeatureCollection",
            "features": [{
                "type": "Feature", "id": "nl-1",
                "geometry": { "type": "Point", "coordinates": [5.12, 52.09] },
                "properties": { "name": "<script>x</script>" }
            }],
            "links": [{ "href": "/a?b=1&c=2", "rel": "next", "type": "application/geo+json", "title": "Next" }]
        });
        let html = page(&doc, "/api/features/collections/sites/items");
        assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("href=\"/api/features/collections/sites/items/nl-1?f=html\""));
        assert!(html.contains("href=\"/a?b=1&amp;c=2\""));
        assert!(html.contains("<title>Features</title>"));
    }
}
