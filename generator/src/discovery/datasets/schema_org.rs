//! The catalogue's datasets as schema.org `Dataset` nodes, for the pages
//! that describe them (dataset search engines read those).

use contract::vocabulary::PARAMETERS;
use serde_json::{Value, json};

use super::{CATALOG_PATH, OpenData};
use crate::model::Material;

impl OpenData<'_> {
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
                "description": d.description,
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
            if let Some(m) = &d.modified {
                node["dateModified"] = json!(m);
            }
            match (&d.start, &d.end) {
                (Some(s), Some(t)) => node["temporalCoverage"] = json!(format!("{s}/{t}")),
                (Some(s), None) => node["temporalCoverage"] = json!(format!("{s}/..")),
                (None, Some(t)) => node["temporalCoverage"] = json!(format!("../{t}")),
                (None, None) => {}
            }
            // The same places as the catalogue's `dct:spatial`: its
            // countries (EU authority IRIs) and the box around the sites.
            let mut places: Vec<Value> = e
                .countries
                .iter()
                .map(|c| {
                    json!({
                        "@type": "Country",
                        "identifier": c,
                        "sameAs": format!("{}/country/{c}", super::EU_AUTHORITY),
                    })
                })
                .collect();
            if let Some([west, south, east, north]) = d.bbox {
                places.push(json!({
                    "@type": "Place",
                    "geo": {"@type": "GeoShape", "box": format!("{south} {west} {north} {east}")},
                }));
            }
            if !places.is_empty() {
                node["spatialCoverage"] = Value::Array(places);
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
