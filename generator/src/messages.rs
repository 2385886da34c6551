//! The templates' interface words in each language: `messages/{code}.toml`
//! beside the templates, one file per language, read by the templates'
//! `t("key")` in the language of the page being rendered. Tables nest:
//! `[header] search = "Search"` is the key `header.search`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The folder of the message files, under the templates' folder.
pub const FOLDER: &str = "messages";

/// The keys the scripts read (`[script]` in a message file).
const SCRIPT_PREFIX: &str = "script.";

/// Every language's words, by language code, then by dotted key.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Messages {
    by_language: BTreeMap<String, BTreeMap<String, String>>,
}

impl Messages {
    /// Reads `templates/messages/*.toml`; none when the folder is absent
    /// (templates that call no `t`). Every file must hold the same keys,
    /// each a string.
    pub fn load(templates: &Path) -> Result<Self> {
        let dir = templates.join(FOLDER);
        let mut by_language = BTreeMap::new();
        if !dir.is_dir() {
            return Ok(Self { by_language });
        }
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry?.path();
            let Some(code) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".toml"))
            else {
                continue;
            };
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let table: toml::Table =
                toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
            let mut words = BTreeMap::new();
            flatten("", &table, &mut words).with_context(|| format!("{}", path.display()))?;
            by_language.insert(code.to_owned(), words);
        }
        let messages = Self { by_language };
        messages.same_keys()?;
        Ok(messages)
    }

    /// Every file holds the keys of every other.
    fn same_keys(&self) -> Result<()> {
        let mut files = self.by_language.iter();
        let Some((first, keys)) = files.next() else {
            return Ok(());
        };
        for (code, other) in files {
            for (a, a_keys, b, b_keys) in [(first, keys, code, other), (code, other, first, keys)] {
                let missing: Vec<&str> = a_keys
                    .keys()
                    .filter(|k| !b_keys.contains_key(*k))
                    .map(String::as_str)
                    .collect();
                if !missing.is_empty() {
                    bail!(
                        "{FOLDER}/{b}.toml lacks {} that {FOLDER}/{a}.toml has: {}",
                        if missing.len() == 1 { "a key" } else { "keys" },
                        missing.join(", ")
                    );
                }
            }
        }
        Ok(())
    }

    /// Fails unless there is a file for each of `languages` (when there
    /// are message files at all).
    pub fn require(&self, languages: &[&str]) -> Result<()> {
        if self.by_language.is_empty() {
            return Ok(());
        }
        for code in languages {
            if !self.by_language.contains_key(*code) {
                bail!(
                    "templates/{FOLDER}/{code}.toml is missing: the site publishes in `{code}`, \
                     expected the templates' words in it (a copy of another language's file, translated)"
                );
            }
        }
        Ok(())
    }

    /// The scripts' words (the keys under `[script]`, without that prefix)
    /// of each language, as the asset `words.{code}.js` that sets
    /// `window.UI_WORDS` before the page's other scripts run.
    pub fn script_assets(&self) -> Vec<(String, Vec<u8>)> {
        self.by_language
            .iter()
            .map(|(code, words)| {
                let scripts: BTreeMap<&str, &str> = words
                    .iter()
                    .filter_map(|(k, v)| Some((k.strip_prefix(SCRIPT_PREFIX)?, v.as_str())))
                    .collect();
                let json = serde_json::to_string(&scripts).unwrap_or_else(|_| "{}".to_owned());
                (
                    format!("words.{code}.js"),
                    format!(
                        "// The scripts' words in `{code}`, from templates/{FOLDER}/{code}.toml.\n\
                         window.UI_WORDS = {json};\n\
                         // uiWord(\"chat.ask\", {{n: 2}}): the word, each {{name}} replaced.\n\
                         window.uiWord = function (key, vars) {{\n  \
                         var s = Object.prototype.hasOwnProperty.call(window.UI_WORDS, key) ? window.UI_WORDS[key] : key;\n  \
                         for (var k in vars || {{}}) s = s.split(\"{{\" + k + \"}}\").join(String(vars[k]));\n  \
                         return s;\n\
                         }};\n"
                    )
                    .into_bytes(),
                )
            })
            .collect()
    }

    /// The word `key` in `language` with each `{name}` of `vars` filled in.
    pub fn fill<V: AsRef<str>>(
        &self,
        language: &str,
        key: &str,
        vars: &[(&str, V)],
    ) -> Result<String, String> {
        let mut word = self.get(language, key)?.to_owned();
        for (name, value) in vars {
            word = word.replace(&format!("{{{name}}}"), value.as_ref());
        }
        Ok(word)
    }

    /// The word `key` in `language`.
    pub fn get(&self, language: &str, key: &str) -> Result<&str, String> {
        let words = self
            .by_language
            .get(language)
            .ok_or_else(|| format!("t(\"{key}\"): no templates/{FOLDER}/{language}.toml"))?;
        words.get(key).map(String::as_str).ok_or_else(|| {
            format!("t(\"{key}\"): no such key in templates/{FOLDER}/{language}.toml")
        })
    }
}

fn flatten(prefix: &str, table: &toml::Table, out: &mut BTreeMap<String, String>) -> Result<()> {
    for (k, v) in table {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::String(s) => {
                out.insert(key, s.clone());
            }
            toml::Value::Table(t) => flatten(&key, t, out)?,
            _ => bail!("`{key}` is not a string or a table of strings"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join(FOLDER)).unwrap();
        for (name, text) in files {
            std::fs::write(tmp.path().join(FOLDER).join(name), text).unwrap();
        }
        tmp
    }

    #[test]
    fn the_scripts_get_their_words_per_language_and_nothing_else() {
        let tmp = dir(&[
            (
                "en.toml",
                "[header]\nsearch = \"Search\"\n[script.chat]\nask = \"Ask\"\n",
            ),
            (
                "nl.toml",
                "[header]\nsearch = \"Zoeken\"\n[script.chat]\nask = \"Vraag\"\n",
            ),
        ]);
        let assets = Messages::load(tmp.path()).unwrap().script_assets();
        let names: Vec<&str> = assets.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["words.en.js", "words.nl.js"]);
        let nl = String::from_utf8(assets[1].1.clone()).unwrap();
        assert!(
            nl.contains("window.UI_WORDS = {\"chat.ask\":\"Vraag\"};"),
            "{nl}"
        );
        assert!(!nl.contains("Zoeken") && nl.contains("window.uiWord = function"));
    }

    #[test]
    fn words_are_read_by_dotted_key_and_every_file_has_every_key() {
        let tmp = dir(&[
            (
                "en.toml",
                "[header]\nsearch = \"Search\"\nmenu = \"Menu\"\n",
            ),
            (
                "nl.toml",
                "[header]\nsearch = \"Zoeken\"\nmenu = \"Menu\"\n",
            ),
        ]);
        let m = Messages::load(tmp.path()).unwrap();
        assert_eq!(m.get("nl", "header.search"), Ok("Zoeken"));
        assert_eq!(m.get("en", "header.search"), Ok("Search"));
        assert!(
            m.get("en", "header.nothing")
                .unwrap_err()
                .contains("en.toml")
        );
        assert!(
            m.get("de", "header.search")
                .unwrap_err()
                .contains("de.toml")
        );
        assert!(m.require(&["en", "nl"]).is_ok());
        let err = m.require(&["en", "fr"]).unwrap_err().to_string();
        assert!(err.contains("messages/fr.toml is missing"), "{err}");

        let tmp = dir(&[
            (
                "en.toml",
                "[header]\nsearch = \"Search\"\nmenu = \"Menu\"\n",
            ),
            ("nl.toml", "[header]\nsearch = \"Zoeken\"\n"),
        ]);
        let err = Messages::load(tmp.path()).unwrap_err().to_string();
        assert!(
            err.contains("nl.toml lacks a key") && err.contains("header.menu"),
            "{err}"
        );
        let tmp = dir(&[("en.toml", "count = 3\n")]);
        let err = format!("{:#}", Messages::load(tmp.path()).unwrap_err());
        assert!(err.contains("`count` is not a string"), "{err}");
        assert_eq!(
            Messages::load(tempfile::tempdir().unwrap().path()).unwrap(),
            Messages::default()
        );
    }
}
