//! The open-data catalogue, from one set of facts in two vocabularies:
//! DCAT-AP 3 (`/catalog.jsonld`, which European data portals harvest) and
//! schema.org `Dataset` / `DataCatalog` (on each dataset's page, which
//! dataset search engines read). The facts come from `content/catalog.toml`,
//! the licence grants, the contract's routes and vocabulary and the file
//! archive; neither rendering adds a fact the other lacks.

use contract::routes::{self, RouteId, StaticFile};
use contract::vocabulary::PARAMETERS;
use serde_json::{Value, json};

mod codes;

use codes::{
    Terms, add_licence, eu_file_type, eu_language, licence_kinds, media_essence, wkt_polygon,
};

use crate::archive::ArchivedFile;
use crate::content::Content;
use crate::data_snapshots::Snapshot;
use crate::model::{CatalogDataset, Material};
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

/// One distribution: where to get the data and in which form.
#[derive(Debug, Clone)]
struct Distribution {
    title: String,
    description: String,
    url: String,
    /// Whether `url` is the file itself (a download) rather than an API.
    download: bool,
    media_type: &'static str,
    size: Option<u64>,
    sha256: Option<String>,
}

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
                        download: true,
                        media_type: media_essence(&f.media_type),
                        size: Some(f.size),
                        sha256: Some(f.sha256.clone()),
                    }));
                }
                if entry.material == Material::ObservationData {
                    distributions.extend(snapshot_distributions(snapshots, &base_url));
                }
                Dataset {
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

    /// Whether any dataset is described on the page at `url`.
    pub fn describes(&self, url: &str) -> bool {
        self.datasets.iter().any(|d| d.entry.page == url)
    }

    /// The catalogue as DCAT-AP 3 JSON-LD.
    pub fn dcat_ap(&self) -> Value {
        let lang = self.content.site.language.as_str();
        let text = |s: &str| json!({"@value": s, "@language": lang});
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
            "dct:title": text(self.title()),
            "dct:description": text(self.description()),
            "dct:publisher": {"@id": self.publisher_iri()},
            "foaf:homepage": {"@id": format!("{}/", self.base_url), "@type": "foaf:Document"},
            "dct:modified": {"@value": self.content.site.updated.as_str(), "@type": "xsd:date"},
            "dcat:dataset": self.datasets.iter().map(|d| json!({"@id": d.iri})).collect::<Vec<_>>(),
            "dcat:service": {"@id": self.service_iri()},
        });
        if let Some(c) = &self.content.catalog {
            catalog["dct:issued"] = json!({"@value": c.issued.as_str(), "@type": "xsd:date"});
        }
        if let Some(l) = &language {
            catalog["dct:language"] = l.clone();
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
                "dct:title": text(&e.title),
                "dct:description": text(&e.description),
                "dct:publisher": {"@id": self.publisher_iri()},
                "dcat:contactPoint": contact_point,
                "dcat:landingPage": {"@id": d.page, "@type": "foaf:Document"},
                "dcat:keyword": e.keywords.iter().map(|k| text(k)).collect::<Vec<_>>(),
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
            if e.start.is_some() || e.end.is_some() {
                let mut period = json!({"@type": "dct:PeriodOfTime"});
                if let Some(s) = &e.start {
                    period["dcat:startDate"] = json!({"@value": s.as_str(), "@type": "xsd:date"});
                }
                if let Some(s) = &e.end {
                    period["dcat:endDate"] = json!({"@value": s.as_str(), "@type": "xsd:date"});
                }
                node["dct:temporal"] = period;
            }
            let mut spatial: Vec<Value> = e
                .countries
                .iter()
                .map(|c| terms.concept("country", c, "dct:Location"))
                .collect();
            if let Some(bbox) = e.bbox {
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
                    "dcat:accessURL": {"@id": if dist.download { d.page.clone() } else { dist.url.clone() }},
                    "dcat:mediaType": {"@id": format!("{IANA_MEDIA_TYPES}/{}", dist.media_type)},
                    "dct:license": {"@id": d.licence_url},
                    "dct:rights": {"@type": "dct:RightsStatement", "rdfs:label": text(&d.attribution)},
                });
                if let Some(code) = eu_file_type(dist.media_type) {
                    n["dct:format"] = terms.concept("file-type", code, "dct:MediaTypeOrExtent");
                }
                if dist.download {
                    n["dcat:downloadURL"] = json!({"@id": dist.url});
                } else {
                    n["dcat:accessService"] = json!({"@id": self.service_iri()});
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
        let served: Vec<Value> = self
            .datasets
            .iter()
            .filter(|d| d.distributions.iter().any(|x| !x.download))
            .map(|d| json!({"@id": d.iri}))
            .collect();
        graph.push(json!({
            "@id": self.service_iri(),
            "@type": "dcat:DataService",
            "dct:title": text(&format!("{} API", service.name)),
            "dcat:endpointURL": {"@id": format!("{}/", self.api_origin)},
            "dcat:endpointDescription": {"@id": format!("{}{}", self.base_url, routes::OPENAPI.path)},
            "dcat:servesDataset": served,
            "dct:conformsTo": {"@id": OPENAPI_SPEC, "@type": "dct:Standard"},
            "dcat:keyword": keywords.iter().map(|k| text(k)).collect::<Vec<_>>(),
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

    /// schema.org `Dataset` nodes (with their `DataCatalog`) for the page
    /// at `url`, to sit beside the page's own node in one `@graph`.
    pub fn schema_org(&self, url: &str) -> Vec<Value> {
        let service = &self.content.service;
        let publisher = json!({
            "@type": "Organization",
            "name": service.name,
            "url": service.url.absolute(&self.base_url),
            "email": service.contact.email.as_str(),
        });
        let mut nodes = Vec::new();
        for d in self.datasets.iter().filter(|d| d.entry.page == url) {
            let e = d.entry;
            let mut node = json!({
                "@type": "Dataset",
                "@id": d.iri,
                "name": e.title,
                "description": e.description,
                "url": d.page,
                "identifier": d.iri,
                "keywords": e.keywords,
                "license": d.licence_url,
                "creditText": d.attribution,
                "publisher": publisher,
                "creator": publisher,
                "isAccessibleForFree": true,
                "inLanguage": self.content.site.language,
                "includedInDataCatalog": {
                    "@type": "DataCatalog",
                    "@id": self.catalog_iri(),
                    "name": self.title(),
                    "url": format!("{}{CATALOG_PATH}", self.base_url),
                },
                "distribution": d.distributions.iter().map(|x| {
                    let mut n = json!({
                        "@type": "DataDownload",
                        "name": x.title,
                        "encodingFormat": x.media_type,
                        "contentUrl": x.url,
                    });
                    if let Some(size) = x.size {
                        n["contentSize"] = json!(format!("{size} B"));
                    }
                    if let Some(sum) = &x.sha256 {
                        n["sha256"] = json!(sum);
                    }
                    n
                }).collect::<Vec<_>>(),
            });
            match (&e.start, &e.end) {
                (Some(s), Some(t)) => node["temporalCoverage"] = json!(format!("{s}/{t}")),
                (Some(s), None) => node["temporalCoverage"] = json!(format!("{s}/..")),
                (None, Some(t)) => node["temporalCoverage"] = json!(format!("../{t}")),
                (None, None) => {}
            }
            if let Some([west, south, east, north]) = e.bbox {
                node["spatialCoverage"] = json!({
                    "@type": "Place",
                    "geo": {"@type": "GeoShape", "box": format!("{south} {west} {north} {east}")},
                });
            }
            if e.variables {
                node["variableMeasured"] = PARAMETERS
                    .iter()
                    .map(|p| {
                        json!({
                            "@type": "PropertyValue",
                            "name": p.name,
                            "propertyID": p.name,
                            "unitText": p.unit,
                        })
                    })
                    .collect();
            }
            if e.material == Material::ObservationData {
                node["measurementTechnique"] = json!(
                    "Volunteer measurements with test kits and a phone app, validated and quality-flagged"
                );
            }
            nodes.push(node);
        }
        nodes
    }
}

/// The data files of each citable snapshot, newest first.
fn snapshot_distributions(snapshots: &[Snapshot], base_url: &str) -> Vec<Distribution> {
    let data = [
        contract::snapshot::OBSERVATIONS_CSV,
        contract::snapshot::SITES_CSV,
        contract::snapshot::SITES_GEOJSON,
    ];
    snapshots
        .iter()
        .flat_map(|s| {
            s.files
                .iter()
                .filter(|f| data.contains(&f.name.as_str()))
                .map(move |f| Distribution {
                    title: format!("{}, snapshot {}", f.name, s.version),
                    description: format!(
                        "Citable snapshot {} of {} ({}): {}",
                        s.version,
                        s.issued,
                        s.sizes.join(", "),
                        f.name
                    ),
                    url: format!("{base_url}{}", f.url),
                    download: true,
                    media_type: media_essence(&f.media_type),
                    size: Some(f.size),
                    sha256: Some(f.sha256.clone()),
                })
        })
        .collect()
}

/// The distributions of a contract route: one per media type it answers.
fn route_distributions(path: &str, api_origin: &str) -> Vec<Distribution> {
    let Some(route) = routes::ROUTES.iter().find(|r| r.path == path) else {
        return Vec::new();
    };
    let download = matches!(route.id, RouteId::Static(StaticFile::ServiceInformation));
    route
        .media_types
        .iter()
        .map(|m| Distribution {
            title: format!("{} ({})", route.summary, media_essence(m)),
            description: format!(
                "{}: {} answered as {}; its parameters are in the OpenAPI contract",
                route.summary,
                route.path,
                media_essence(m)
            ),
            url: format!("{api_origin}{path}"),
            download,
            media_type: media_essence(m),
            size: None,
            sha256: None,
        })
        .collect()
}
