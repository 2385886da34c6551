//! The open-data catalogue, from one set of facts in two vocabularies:
//! DCAT-AP 3 (`/catalog.jsonld`, which European data portals harvest) and
//! schema.org `Dataset` / `DataCatalog` (on each dataset's page, which
//! dataset search engines read). The facts come from `content/catalog.toml`,
//! the licence grants, the contract's routes and vocabulary and the file
//! archive; neither rendering adds a fact the other lacks.

use contract::routes;
use serde_json::{Value, json};

mod codes;
mod schema_org;
mod sources;

use codes::{
    Terms, add_licence, eu_file_type, eu_language, licence_kinds, media_essence, wkt_polygon,
};
use sources::{
    Distribution, FEATURES_CONFORMANCE, FEATURES_STANDARD, Service, features_distributions,
    route_distributions, snapshot_distributions,
};

use crate::archive::ArchivedFile;
use crate::content::Content;
use crate::data_snapshots::{DataFacts, Snapshot};
use crate::model::{CatalogDataset, CatalogText, Material};

/// Texts by language code (catalog.toml's `translations`).
type Translations = std::collections::BTreeMap<String, CatalogText>;
use crate::origin::Origins;

/// The catalogue's site path.
pub const CATALOG_PATH: &str = "/catalog.jsonld";

const EU_AUTHORITY: &str = "http://publications.europa.eu/resource/authority";
const IANA_MEDIA_TYPES: &str = "http://www.iana.org/assignments/media-types";
const GEOSPARQL_WKT: &str = "http://www.opengis.net/ont/geosparql#wktLiteral";
const ADMS_PUBLISHER_TYPE: &str = "http://purl.org/adms/publishertype";
const ADMS_LICENCE_TYPE: &str = "http://purl.org/adms/licencetype";
/// SHA-256 as the DCAT-AP shapes name it (SPDX's term, https).
const SHA256_ALGORITHM: &str = "https://spdx.org/rdf/terms#checksumAlgorithm_sha256";
const OPENAPI_SPEC: &str = "https://spec.openapis.org/oas/v3.1.0";

/// A dataset with everything both renderings say of it.
#[derive(Debug, Clone)]
struct Dataset<'a> {
    entry: &'a CatalogDataset,
    iri: String,
    page: String,
    licence_id: String,
    licence_url: String,
    licence_title: String,
    attribution: String,
    distributions: Vec<Distribution>,
    /// The description, with the facts of its data where known.
    description: String,
    /// Temporal and spatial coverage: computed from the newest snapshot
    /// for the observation data, as `catalog.toml` states it otherwise.
    start: Option<String>,
    end: Option<String>,
    bbox: Option<[f64; 4]>,
    /// When its data last changed: the newest snapshot's issue date.
    modified: Option<String>,
}

/// The catalogue's facts, resolved once per build.
pub struct OpenData<'a> {
    content: &'a Content,
    base_url: String,
    api_origin: String,
    datasets: Vec<Dataset<'a>>,
}

impl<'a> OpenData<'a> {
    /// The facts of `content`'s catalogue (an empty catalogue without
    /// `catalog.toml`); `archive` are the files of the file archive, and
    /// the data files of the citable `snapshots` are distributions of the
    /// observation data.
    pub fn new(
        content: &'a Content,
        origins: &Origins,
        archive: &[ArchivedFile],
        snapshots: &[Snapshot],
    ) -> Self {
        let base_url = origins.site.clone();
        let api_origin = origins.api().to_owned();
        let entries = content.catalog.as_ref().map_or(&[][..], |c| &c.datasets);
        let datasets = entries
            .iter()
            .map(|entry| {
                let grant = content.grant(entry.material);
                let licence = grant.and_then(|g| content.licence(&g.licence));
                let mut distributions = Vec::new();
                for path in &entry.routes {
                    distributions.extend(route_distributions(path, &api_origin));
                }
                if entry.archive_files {
                    distributions.extend(archive.iter().map(|f| Distribution {
                        title: f.name.clone(),
                        description: f.format.clone(),
                        url: format!("{base_url}{}", f.url),
                        service: Service::None,
                        media_type: media_essence(&f.media_type),
                        size: Some(f.size),
                        sha256: Some(f.sha256.clone()),
                    }));
                }
                let observations = entry.material == Material::ObservationData;
                if observations {
                    distributions.extend(features_distributions(&api_origin));
                    distributions.extend(snapshot_distributions(snapshots, &base_url));
                }
                // The observation data's facts are the newest snapshot's,
                // computed from its rows by the export (decision 0215).
                let newest = snapshots.first().filter(|_| observations);
                let facts = newest.map_or_else(DataFacts::default, |s| s.facts.clone());
                let mut description = entry.description.clone();
                if let Some(s) = newest {
                    let sentence = facts.sentence();
                    if !sentence.is_empty() {
                        description.push_str(&format!(
                            " As published in snapshot {} of {}: {sentence}.",
                            s.version, s.issued
                        ));
                    }
                }
                let own =
                    |d: &Option<crate::model::Date>| d.as_ref().map(|d| d.as_str().to_owned());
                Dataset {
                    description,
                    start: if observations {
                        facts.first.clone()
                    } else {
                        own(&entry.start)
                    },
                    end: if observations {
                        facts.last.clone()
                    } else {
                        own(&entry.end)
                    },
                    bbox: if observations { facts.bbox } else { entry.bbox },
                    modified: newest.map(|s| s.issued.clone()),
                    entry,
                    iri: format!("{base_url}{CATALOG_PATH}#{}", entry.id),
                    page: format!("{base_url}{}", entry.page),
                    licence_id: grant.map_or_else(String::new, |g| g.licence.to_string()),
                    licence_url: grant.map_or_else(String::new, |g| g.url.absolute(&base_url)),
                    licence_title: licence.map_or_else(String::new, |l| l.title.clone()),
                    attribution: grant
                        .and_then(|g| g.attribution.clone())
                        .unwrap_or_else(|| content.site.default_attribution.clone()),
                    distributions,
                }
            })
            .collect();
        OpenData {
            content,
            base_url,
            api_origin,
            datasets,
        }
    }

    fn catalog_iri(&self) -> String {
        format!("{}{CATALOG_PATH}#catalog", self.base_url)
    }

    fn publisher_iri(&self) -> String {
        format!("{}{CATALOG_PATH}#publisher", self.base_url)
    }

    fn service_iri(&self) -> String {
        format!("{}{CATALOG_PATH}#api", self.base_url)
    }

    fn features_iri(&self) -> String {
        format!("{}{CATALOG_PATH}#ogc-api-features", self.base_url)
    }

    fn service_of(&self, d: &Distribution) -> Option<String> {
        match d.service {
            Service::None => None,
            Service::Api => Some(self.service_iri()),
            Service::Features => Some(self.features_iri()),
        }
    }

    fn title(&self) -> &str {
        self.content
            .catalog
            .as_ref()
            .map_or(&self.content.site.title, |c| &c.title)
    }

    fn description(&self) -> &str {
        self.content
            .catalog
            .as_ref()
            .map_or(&self.content.service.description, |c| &c.description)
    }

    /// When the catalogue last changed: the site's last update, or a
    /// dataset's newer data.
    fn modified(&self) -> &str {
        self.datasets
            .iter()
            .filter_map(|d| d.modified.as_deref())
            .chain([self.content.site.updated.as_str()])
            .max()
            .unwrap_or_default()
    }

    /// Whether any dataset is described on the page at `url`.
    pub fn describes(&self, url: &str) -> bool {
        self.datasets.iter().any(|d| d.entry.page == url)
    }

    /// The catalogue as DCAT-AP 3 JSON-LD.
    pub fn dcat_ap(&self) -> Value {
        let lang = self.content.site.language.as_str();
        let text = |s: &str| json!({"@value": s, "@language": lang});
        // A text in the default language and in each translation given
        // (`[translations.nl]` in catalog.toml), each with its language.
        let texts = |own: &str, other: &Translations, pick: fn(&CatalogText) -> &str| -> Value {
            if other.is_empty() {
                return text(own);
            }
            std::iter::once(text(own))
                .chain(
                    other
                        .iter()
                        .map(|(code, t)| json!({"@value": pick(t), "@language": code})),
                )
                .collect()
        };
        let no_translations = Translations::new();
        let catalog_translations = self
            .content
            .catalog
            .as_ref()
            .map_or(&no_translations, |c| &c.translations);
        let service = &self.content.service;
        let contact = &service.contact;
        let mut graph = Vec::new();
        let mut terms = Terms::default();
        let language =
            eu_language(lang).map(|code| terms.concept("language", code, "dct:LinguisticSystem"));
        let themes: Vec<Value> = self
            .content
            .catalog
            .as_ref()
            .map_or(&[][..], |c| &c.themes)
            .iter()
            .map(|t| terms.concept("data-theme", t, "skos:Concept"))
            .collect();
        let mut catalog = json!({
            "@id": self.catalog_iri(),
            "@type": "dcat:Catalog",
            "dct:title": texts(self.title(), catalog_translations, |t| &t.title),
            "dct:description": texts(self.description(), catalog_translations, |t| &t.description),
            "dct:publisher": {"@id": self.publisher_iri()},
            "foaf:homepage": {"@id": format!("{}/", self.base_url), "@type": "foaf:Document"},
            "dct:modified": {"@value": self.modified(), "@type": "xsd:date"},
            "dcat:dataset": self.datasets.iter().map(|d| json!({"@id": d.iri})).collect::<Vec<_>>(),
            "dcat:service": [{"@id": self.service_iri()}, {"@id": self.features_iri()}],
        });
        if let Some(c) = &self.content.catalog {
            catalog["dct:issued"] = json!({"@value": c.issued.as_str(), "@type": "xsd:date"});
        }
        // The catalogue's metadata is in the default language and in each
        // it has texts in.
        let languages: Vec<Value> = language
            .iter()
            .cloned()
            .chain(
                catalog_translations
                    .keys()
                    .filter_map(|code| eu_language(code))
                    .map(|code| terms.concept("language", code, "dct:LinguisticSystem")),
            )
            .collect();
        match languages.len() {
            0 => {}
            1 => catalog["dct:language"] = languages[0].clone(),
            _ => catalog["dct:language"] = Value::Array(languages),
        }
        let mut countries: Vec<&str> = Vec::new();
        for d in &self.datasets {
            for c in &d.entry.countries {
                if !countries.contains(&c.as_str()) {
                    countries.push(c);
                }
            }
        }
        if !countries.is_empty() {
            catalog["dct:spatial"] = countries
                .iter()
                .map(|c| terms.concept("country", c, "dct:Location"))
                .collect();
        }
        if !themes.is_empty() {
            catalog["dcat:themeTaxonomy"] = json!({
                "@id": format!("{EU_AUTHORITY}/data-theme"),
                "@type": "skos:ConceptScheme",
                "dct:title": {"@value": "Data theme", "@language": "en"},
            });
        }
        // The catalogue's own licence: the service information's.
        let mut licences: Vec<(String, String, String)> = Vec::new();
        if let Some(g) = self.content.grant(Material::ServiceInformation) {
            let url = g.url.absolute(&self.base_url);
            catalog["dct:license"] = json!({"@id": url});
            let title = self
                .content
                .licence(&g.licence)
                .map_or_else(String::new, |l| l.title.clone());
            add_licence(&mut licences, &url, &title, g.licence.as_str());
        }
        graph.push(catalog);
        graph.push(json!({
            "@id": self.publisher_iri(),
            "@type": "foaf:Agent",
            "foaf:name": text(&service.name),
            "foaf:homepage": {"@id": service.url.absolute(&self.base_url), "@type": "foaf:Document"},
            "dct:type": terms.term(
                format!("{ADMS_PUBLISHER_TYPE}/Academia-ScientificOrganisation"),
                &format!("{ADMS_PUBLISHER_TYPE}/1.0"),
                "skos:Concept",
                Some("Academia/Scientific organisation"),
            ),
        }));
        let contact_point = json!({
            "@type": "vcard:Kind",
            "vcard:fn": format!("{} contact", service.name),
            "vcard:hasEmail": {"@id": format!("mailto:{}", contact.email)},
            "vcard:hasURL": {"@id": contact.form_url.absolute(&self.base_url)},
        });
        let mut media_types: Vec<&'static str> = Vec::new();
        for d in &self.datasets {
            let e = d.entry;
            let mut node = json!({
                "@id": d.iri,
                "@type": "dcat:Dataset",
                "dct:identifier": e.id.as_str(),
                "dct:title": texts(&e.title, &e.translations, |t| &t.title),
                "dct:description": texts(&d.description, &e.translations, |t| &t.description),
                "dct:publisher": {"@id": self.publisher_iri()},
                "dcat:contactPoint": contact_point,
                "dcat:landingPage": {"@id": d.page, "@type": "foaf:Document"},
                "dcat:keyword": e.keywords.iter().map(|k| text(k))
                    .chain(e.translations.iter().flat_map(|(code, t)| {
                        t.keywords.iter().map(move |k| json!({"@value": k, "@language": code}))
                    }))
                    .collect::<Vec<_>>(),
                "dcat:theme": e.themes.iter().map(|t| terms.concept("data-theme", t, "skos:Concept")).collect::<Vec<_>>(),
                "dct:accrualPeriodicity": terms.concept("frequency", &e.frequency, "dct:Frequency"),
                "dct:accessRights": terms.concept("access-right", "PUBLIC", "dct:RightsStatement"),
                "dcat:distribution": (0..d.distributions.len())
                    .map(|i| json!({"@id": format!("{}-distribution-{}", d.iri, i + 1)}))
                    .collect::<Vec<_>>(),
            });
            if let Some(l) = &language {
                node["dct:language"] = l.clone();
            }
            if let Some(m) = &d.modified {
                node["dct:modified"] = json!({"@value": m, "@type": "xsd:date"});
            }
            if d.start.is_some() || d.end.is_some() {
                let mut period = json!({"@type": "dct:PeriodOfTime"});
                if let Some(s) = &d.start {
                    period["dcat:startDate"] = json!({"@value": s, "@type": "xsd:date"});
                }
                if let Some(s) = &d.end {
                    period["dcat:endDate"] = json!({"@value": s, "@type": "xsd:date"});
                }
                node["dct:temporal"] = period;
            }
            let mut spatial: Vec<Value> = e
                .countries
                .iter()
                .map(|c| terms.concept("country", c, "dct:Location"))
                .collect();
            if let Some(bbox) = d.bbox {
                let [w, s, e, n] = bbox;
                spatial.push(json!({
                    "@type": "dct:Location",
                    "dcat:bbox": {"@value": wkt_polygon(bbox), "@type": GEOSPARQL_WKT},
                    "dcat:centroid": {"@value": format!("POINT({} {})", (w + e) / 2.0, (s + n) / 2.0), "@type": GEOSPARQL_WKT},
                }));
            }
            if !spatial.is_empty() {
                node["dct:spatial"] = Value::Array(spatial);
            }
            graph.push(node);
            add_licence(
                &mut licences,
                &d.licence_url,
                &d.licence_title,
                &d.licence_id,
            );
            for (i, dist) in d.distributions.iter().enumerate() {
                if !media_types.contains(&dist.media_type) {
                    media_types.push(dist.media_type);
                }
                let mut n = json!({
                    "@id": format!("{}-distribution-{}", d.iri, i + 1),
                    "@type": "dcat:Distribution",
                    "dct:title": text(&dist.title),
                    "dct:description": text(&dist.description),
                    "dcatap:availability": terms.term(
                        format!("{EU_AUTHORITY}/planned-availability/STABLE"),
                        &format!("{EU_AUTHORITY}/planned-availability"),
                        "skos:Concept",
                        Some("stable"),
                    ),
                    "dcat:accessURL": {"@id": if dist.download() { d.page.clone() } else { dist.url.clone() }},
                    "dcat:mediaType": {"@id": format!("{IANA_MEDIA_TYPES}/{}", dist.media_type)},
                    "dct:license": {"@id": d.licence_url},
                    "dct:rights": {"@type": "dct:RightsStatement", "rdfs:label": text(&d.attribution)},
                });
                if let Some(code) = eu_file_type(dist.media_type) {
                    n["dct:format"] = terms.concept("file-type", code, "dct:MediaTypeOrExtent");
                }
                match self.service_of(dist) {
                    None => n["dcat:downloadURL"] = json!({"@id": dist.url}),
                    Some(service) => n["dcat:accessService"] = json!({"@id": service}),
                }
                if let Some(size) = dist.size {
                    n["dcat:byteSize"] =
                        json!({"@value": size.to_string(), "@type": "xsd:nonNegativeInteger"});
                }
                if let Some(sum) = &dist.sha256 {
                    n["spdx:checksum"] = json!({
                        "@type": "spdx:Checksum",
                        "spdx:algorithm": {"@id": SHA256_ALGORITHM, "@type": "spdx:ChecksumAlgorithm"},
                        "spdx:checksumValue": {"@value": sum, "@type": "xsd:hexBinary"},
                    });
                }
                graph.push(n);
            }
        }
        let mut keywords: Vec<&str> = Vec::new();
        for d in &self.datasets {
            for k in &d.entry.keywords {
                if !keywords.contains(&k.as_str()) {
                    keywords.push(k);
                }
            }
        }
        let served = |service: Service| -> Vec<Value> {
            self.datasets
                .iter()
                .filter(|d| d.distributions.iter().any(|x| x.service == service))
                .map(|d| json!({"@id": d.iri}))
                .collect()
        };
        let keywords: Vec<Value> = keywords.iter().map(|k| text(k)).collect();
        graph.push(json!({
            "@id": self.service_iri(),
            "@type": "dcat:DataService",
            "dct:title": text(&format!("{} API", service.name)),
            "dcat:endpointURL": {"@id": format!("{}/", self.api_origin)},
            "dcat:endpointDescription": {"@id": format!("{}{}", self.base_url, routes::OPENAPI.path)},
            "dcat:servesDataset": served(Service::Api),
            "dct:conformsTo": {"@id": OPENAPI_SPEC, "@type": "dct:Standard"},
            "dcat:keyword": keywords,
            "dcat:theme": themes,
            "dct:publisher": {"@id": self.publisher_iri()},
            "dcat:contactPoint": contact_point,
        }));
        // The OGC API – Features routes: a service of their own, with their
        // own OpenAPI 3.0 definition (decision 0216).
        let mut standards = vec![json!({"@id": FEATURES_STANDARD, "@type": "dct:Standard"})];
        standards.extend(
            FEATURES_CONFORMANCE
                .iter()
                .map(|c| json!({"@id": c, "@type": "dct:Standard"})),
        );
        graph.push(json!({
            "@id": self.features_iri(),
            "@type": "dcat:DataService",
            "dct:title": text(&format!("{} OGC API – Features", service.name)),
            "dct:description": text("The public monitoring sites and the water observations as \
                OGC API – Features collections for GIS software: GeoJSON or HTML, filtered by \
                bounding box and time, paged by next links."),
            "dcat:endpointURL": {"@id": format!("{}{}", self.api_origin, routes::FEATURES_ROOT)},
            "dcat:endpointDescription": {"@id": format!("{}{}", self.base_url, routes::FEATURES_OPENAPI.path)},
            "dcat:servesDataset": served(Service::Features),
            "dct:conformsTo": standards,
            "dcat:keyword": keywords,
            "dcat:theme": themes,
            "dct:publisher": {"@id": self.publisher_iri()},
            "dcat:contactPoint": contact_point,
        }));
        for (url, title, id) in licences {
            let kinds: Vec<Value> = licence_kinds(&id)
                .iter()
                .map(|(code, label)| {
                    terms.term(
                        format!("{ADMS_LICENCE_TYPE}/{code}"),
                        &format!("{ADMS_LICENCE_TYPE}/1.0"),
                        "skos:Concept",
                        Some(label),
                    )
                })
                .collect();
            graph.push(json!({"@id": url, "@type": "dct:LicenseDocument", "rdfs:label": title, "dct:type": kinds}));
        }
        for m in media_types {
            graph.push(json!({"@id": format!("{IANA_MEDIA_TYPES}/{m}"), "@type": "dct:MediaType"}));
        }
        graph.extend(terms.0);
        json!({
            "@context": {
                "dcat": "http://www.w3.org/ns/dcat#",
                "dct": "http://purl.org/dc/terms/",
                "foaf": "http://xmlns.com/foaf/0.1/",
                "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
                "skos": "http://www.w3.org/2004/02/skos/core#",
                "spdx": "http://spdx.org/rdf/terms#",
                "dcatap": "http://data.europa.eu/r5r/",
                "vcard": "http://www.w3.org/2006/vcard/ns#",
                "xsd": "http://www.w3.org/2001/XMLSchema#",
            },
            "@graph": graph,
        })
    }
}
