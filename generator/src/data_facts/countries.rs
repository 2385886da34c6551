//! The countries a page may name, with the codes the data (ISO 3166-1
//! alpha-2) and the catalogue (alpha-3, the EU country table) use, so a
//! name on a page, a code in the data and a code in the catalogue can be
//! compared. Europe first, where the observatory works; a name the table
//! lacks is not recognised on a page.

/// One country: alpha-2 code, alpha-3 code, its English short name, whether
/// running text puts "the" before it, and other names a page may use.
pub struct Country {
    pub alpha2: &'static str,
    pub alpha3: &'static str,
    pub name: &'static str,
    pub article: bool,
    pub aliases: &'static [&'static str],
}

const fn c(alpha2: &'static str, alpha3: &'static str, name: &'static str) -> Country {
    Country {
        alpha2,
        alpha3,
        name,
        article: false,
        aliases: &[],
    }
}

pub const COUNTRIES: &[Country] = &[
    c("AD", "AND", "Andorra"),
    c("AL", "ALB", "Albania"),
    c("AT", "AUT", "Austria"),
    c("BA", "BIH", "Bosnia and Herzegovina"),
    c("BE", "BEL", "Belgium"),
    c("BG", "BGR", "Bulgaria"),
    c("BY", "BLR", "Belarus"),
    c("CH", "CHE", "Switzerland"),
    c("CY", "CYP", "Cyprus"),
    Country {
        aliases: &["Czech Republic"],
        ..c("CZ", "CZE", "Czechia")
    },
    c("DE", "DEU", "Germany"),
    c("DK", "DNK", "Denmark"),
    c("EE", "EST", "Estonia"),
    c("ES", "ESP", "Spain"),
    c("FI", "FIN", "Finland"),
    c("FR", "FRA", "France"),
    Country {
        article: true,
        aliases: &[
            "Great Britain",
            "Britain",
            "England",
            "Scotland",
            "Wales",
            "Northern Ireland",
        ],
        ..c("GB", "GBR", "United Kingdom")
    },
    c("GR", "GRC", "Greece"),
    c("HR", "HRV", "Croatia"),
    c("HU", "HUN", "Hungary"),
    c("IE", "IRL", "Ireland"),
    c("IS", "ISL", "Iceland"),
    c("IT", "ITA", "Italy"),
    c("LI", "LIE", "Liechtenstein"),
    c("LT", "LTU", "Lithuania"),
    c("LU", "LUX", "Luxembourg"),
    c("LV", "LVA", "Latvia"),
    c("MC", "MCO", "Monaco"),
    c("MD", "MDA", "Moldova"),
    c("ME", "MNE", "Montenegro"),
    c("MK", "MKD", "North Macedonia"),
    c("MT", "MLT", "Malta"),
    Country {
        article: true,
        aliases: &["Holland"],
        ..c("NL", "NLD", "Netherlands")
    },
    c("NO", "NOR", "Norway"),
    c("PL", "POL", "Poland"),
    c("PT", "PRT", "Portugal"),
    c("RO", "ROU", "Romania"),
    c("RS", "SRB", "Serbia"),
    c("RU", "RUS", "Russia"),
    c("SE", "SWE", "Sweden"),
    c("SI", "SVN", "Slovenia"),
    c("SK", "SVK", "Slovakia"),
    c("SM", "SMR", "San Marino"),
    Country {
        aliases: &["Turkey"],
        ..c("TR", "TUR", "Türkiye")
    },
    c("UA", "UKR", "Ukraine"),
];

/// The country of an alpha-2 or alpha-3 code (any case).
pub fn by_code(code: &str) -> Option<&'static Country> {
    COUNTRIES
        .iter()
        .find(|c| c.alpha2.eq_ignore_ascii_case(code) || c.alpha3.eq_ignore_ascii_case(code))
}

/// The name of `code` as running text writes it ("the Netherlands"), or
/// the code itself when the table lacks it.
pub fn in_text(code: &str) -> String {
    match by_code(code) {
        Some(c) if c.article => format!("the {}", c.name),
        Some(c) => c.name.to_owned(),
        None => code.to_owned(),
    }
}

/// Every country `text` names, as alpha-2 codes with the name as written,
/// in the order found. Whole words only, the longest name first, so
/// "Northern Ireland" is not also read as Ireland.
pub fn named_in(text: &str) -> Vec<(&'static str, String)> {
    let mut names: Vec<(&'static str, &'static str)> = COUNTRIES
        .iter()
        .flat_map(|c| {
            std::iter::once(c.name)
                .chain(c.aliases.iter().copied())
                .map(|n| (n, c.alpha2))
        })
        .collect();
    names.sort_by_key(|(n, _)| std::cmp::Reverse(n.len()));
    let mut taken = vec![false; text.len()];
    let mut found: Vec<(usize, &'static str, String)> = Vec::new();
    for (name, code) in names {
        for (at, _) in text.match_indices(name) {
            let end = at + name.len();
            let word_before = text[..at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let word_after = text[end..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
            if word_before || word_after || taken[at..end].iter().any(|t| *t) {
                continue;
            }
            taken[at..end].iter_mut().for_each(|t| *t = true);
            found.push((at, code, name.to_owned()));
        }
    }
    found.sort_by_key(|(at, _, _)| *at);
    found
        .into_iter()
        .map(|(_, code, name)| (code, name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_as_whole_words_longest_first() {
        let found =
            named_in("Sites in Northern Ireland, Ireland and the Netherlands; not Finlandia.");
        let codes: Vec<&str> = found.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, ["GB", "IE", "NL"]);
        assert_eq!(found[0].1, "Northern Ireland");
    }

    #[test]
    fn codes_and_running_text() {
        assert_eq!(by_code("nld").map(|c| c.alpha2), Some("NL"));
        assert_eq!(by_code("FI").map(|c| c.alpha3), Some("FIN"));
        assert_eq!(in_text("GB"), "the United Kingdom");
        assert_eq!(in_text("DK"), "Denmark");
        assert_eq!(in_text("ZZ"), "ZZ");
        let mut codes: Vec<&str> = COUNTRIES.iter().map(|c| c.alpha2).collect();
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n, "a country is listed twice");
    }
}
