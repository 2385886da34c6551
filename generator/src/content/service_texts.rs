//! The service information's texts in the site's other languages
//! (decision 0268): `content/service/projects.nl.toml` beside
//! `projects.toml` holds the Dutch of that file's texts, by the same keys,
//! the entries of a list matched by their `id`. Only text is translated:
//! a number, a flag, an `id` or a key the source lacks is an error naming
//! the file. A text a translation leaves out stays in the default
//! language. `service.json` keeps the one canonical document, in the
//! default language; the translated texts feed the pages in that language.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::error::{ContentError, parse_toml, read};
use crate::model::{ServiceInformation, Site};

/// Each file of `content/service/` and where its keys sit in
/// [`ServiceInformation`]: at the top (`None`), or under a field.
const FILES: [(&str, Option<&str>); 8] = [
    ("organisation", None),
    ("services", None),
    ("projects", None),
    ("evidence", None),
    ("scope", Some("scope")),
    ("consortium", Some("consortium")),
    ("contact", Some("contact")),
    ("guardrails", Some("guardrails")),
];

/// A file of texts in another language and the file it translates, as
/// paths under `content/` (`service/projects.nl.toml`).
#[derive(Debug, Clone)]
pub struct TextsFile {
    pub language: String,
    pub translation: String,
    pub source: String,
}

/// The service information in each of the site's other languages that has
/// translated texts (one `*.{code}.toml` or more), by language code, and
/// the files they came from.
pub(super) fn load_service_texts(
    dir: &Path,
    site: &Site,
    service: &ServiceInformation,
) -> Result<(BTreeMap<String, ServiceInformation>, Vec<TextsFile>), ContentError> {
    // A file of texts in a language the site does not declare is a
    // mistake, not a page to leave out silently.
    let declared: Vec<&str> = site.translations().map(|l| l.code.as_str()).collect();
    for entry in std::fs::read_dir(dir).map_err(|e| ContentError::whole(dir, e.to_string()))? {
        let path = entry
            .map_err(|e| ContentError::whole(dir, e.to_string()))?
            .path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some((stem, code)) = name.strip_suffix(".toml").and_then(|n| n.rsplit_once('.')) else {
            continue;
        };
        if FILES.iter().any(|(s, _)| *s == stem) && !declared.contains(&code) {
            return Err(ContentError::whole(
                &path,
                format!(
                    "texts in `{code}`, a language site.toml does not declare; expected one of its \
                     other languages ({}) or no such file",
                    if declared.is_empty() {
                        "none".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ),
            ));
        }
    }
    let mut out = BTreeMap::new();
    let mut files = Vec::new();
    for language in site.translations() {
        let code = &language.code;
        let mut value = serde_json::to_value(service).expect("the service information is JSON");
        let mut any = false;
        for (stem, field) in FILES {
            let path = dir.join(format!("{stem}.{code}.toml"));
            if !path.exists() {
                continue;
            }
            any = true;
            files.push(TextsFile {
                language: code.clone(),
                translation: format!("service/{stem}.{code}.toml"),
                source: format!("service/{stem}.toml"),
            });
            let text = read(&path)?;
            let overlay: toml::Value = parse_toml(&path, &text, 0)?;
            let overlay = serde_json::to_value(overlay).expect("TOML is JSON");
            let target = match field {
                None => &mut value,
                Some(f) => &mut value[f],
            };
            merge(target, &overlay, field.unwrap_or(""))
                .map_err(|m| ContentError::whole(&path, m))?;
        }
        if any {
            let translated = serde_json::from_value(value)
                .map_err(|e| ContentError::whole(dir, format!("the texts in `{code}`: {e}")))?;
            out.insert(code.clone(), translated);
        }
    }
    Ok((out, files))
}

/// Lays `overlay`'s texts over `target`, at `at` (a dotted path, for the
/// error).
fn merge(target: &mut Value, overlay: &Value, at: &str) -> Result<(), String> {
    let key = |k: &str| {
        if at.is_empty() {
            k.to_owned()
        } else {
            format!("{at}.{k}")
        }
    };
    match (target, overlay) {
        (Value::Object(t), Value::Object(o)) => {
            for (k, v) in o {
                if k == "id" {
                    continue;
                }
                let Some(slot) = t.get_mut(k) else {
                    return Err(format!(
                        "`{}` is not in the file it translates, expected only its keys",
                        key(k)
                    ));
                };
                merge(slot, v, &key(k))?;
            }
            Ok(())
        }
        (Value::Array(t), Value::Array(o)) if o.iter().all(Value::is_string) => {
            if !t.iter().all(Value::is_string) {
                return Err(format!("`{at}` is a list of entries, not of texts"));
            }
            *t = o.clone();
            Ok(())
        }
        (Value::Array(t), Value::Array(o)) => {
            for entry in o {
                let Some(id) = entry.get("id").and_then(Value::as_str) else {
                    return Err(format!(
                        "an entry of `{at}` without an `id`, expected the id of the entry it translates"
                    ));
                };
                let Some(slot) = t
                    .iter_mut()
                    .find(|e| e.get("id").and_then(Value::as_str) == Some(id))
                else {
                    return Err(format!(
                        "`{at}` has no entry `{id}` in the file it translates"
                    ));
                };
                merge(slot, entry, &format!("{at}.{id}"))?;
            }
            Ok(())
        }
        (t @ Value::String(_), Value::String(o)) => {
            *t = Value::String(o.clone());
            Ok(())
        }
        _ => Err(format!(
            "`{at}`: only texts are translated, expected a text or a list of texts where the file it \
             translates has one"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn texts_are_laid_over_by_key_and_id_and_nothing_else_is() {
        let mut v = json!({"summary": "A", "members": [{"id": "a", "role": "R", "country": "NL"}],
                           "themes": ["x"], "days": 30});
        merge(
            &mut v,
            &json!({"summary": "B", "members": [{"id": "a", "role": "S"}], "themes": ["y", "z"]}),
            "",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"summary": "B", "members": [{"id": "a", "role": "S", "country": "NL"}],
                   "themes": ["y", "z"], "days": 30})
        );
        let err = |o: Value| merge(&mut v.clone(), &o, "").unwrap_err();
        assert!(err(json!({"title": "T"})).contains("`title` is not in the file"));
        assert!(err(json!({"members": [{"id": "b", "role": "S"}]})).contains("no entry `b`"));
        assert!(err(json!({"members": [{"role": "S"}]})).contains("without an `id`"));
        assert!(err(json!({"days": 31})).contains("only texts are translated"));
    }
}
