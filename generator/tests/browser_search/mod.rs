//! Reading the site search's split index as the browser's script does,
//! for the tests that check what it finds (`mod browser_search;`).

use std::path::Path;

/// The pages the index in `folder` (`search/`, a language's
/// `search/nl/`) of `dist` gives for one whole word: the head, the word's
/// term shard, the documents' shards.
pub fn finds(dist: &Path, folder: &str, word: &str) -> Vec<String> {
    let json = |rel: &str| -> serde_json::Value {
        let path = dist.join(folder).join(rel);
        serde_json::from_slice(
            &std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        )
        .unwrap()
    };
    let head = json("browser.json");
    let shards = head["shards"].as_u64().unwrap() as usize;
    let per = head["docs_per_shard"].as_u64().unwrap() as usize;
    let word = generator::search::terms::fold(word);
    let shard = generator::search::terms::term_shard(&word, shards);
    let terms = json(&format!("terms-{shard}.json"));
    let Some(list) = terms["terms"][word.as_str()].as_array() else {
        return Vec::new();
    };
    list.chunks(2)
        .map(|pair| {
            let id = pair[0].as_u64().unwrap() as usize;
            let docs = json(&format!("docs-{}.json", id / per));
            docs["docs"][id % per][0].as_str().unwrap().to_owned()
        })
        .collect()
}
