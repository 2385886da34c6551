//! `content/service/`: the service information (organisation, services,
//! projects, evidence, scope, consortium, contact and guardrails), read
//! and checked across its files: unique ids, known projects, licences that
//! `site.toml` lists, one grant per kind of material, and the guardrails
//! that may not be relaxed.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;

use super::{ContentError, error_at_value, load, unique_ids};
use crate::model::{
    Consortium, Contact, Date, Evidence, Guardrails, Id, Link, Material, Project, Scope, Service,
    ServiceInformation, Site,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrganisationFile {
    name: String,
    description: String,
    url: Link,
    updated: Date,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServicesFile {
    services: Vec<Service>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectsFile {
    projects: Vec<Project>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EvidenceFile {
    evidence: Vec<Evidence>,
}

/// Reads and checks the service information in `svc` against `site`.
pub(super) fn load_service(svc: &Path, site: &Site) -> Result<ServiceInformation, ContentError> {
    let (org, _): (OrganisationFile, _) = load(&svc.join("organisation.toml"))?;
    let services_path = svc.join("services.toml");
    let (services, services_text): (ServicesFile, _) = load(&services_path)?;
    let projects_path = svc.join("projects.toml");
    let (projects, projects_text): (ProjectsFile, _) = load(&projects_path)?;
    let evidence_path = svc.join("evidence.toml");
    let (evidence, evidence_text): (EvidenceFile, _) = load(&evidence_path)?;
    let (scope, _): (Scope, _) = load(&svc.join("scope.toml"))?;
    let consortium_path = svc.join("consortium.toml");
    let (consortium, consortium_text): (Consortium, _) = load(&consortium_path)?;
    let contact_path = svc.join("contact.toml");
    let (contact, contact_text): (Contact, _) = load(&contact_path)?;
    if !(1..=3650).contains(&contact.enquiry_retention_days) {
        return Err(error_at_value(
            &contact_path,
            &contact_text,
            "enquiry_retention_days",
            format!(
                "enquiry_retention_days = {}, expected 1 to 3650 days",
                contact.enquiry_retention_days
            ),
        ));
    }
    let guardrails_path = svc.join("guardrails.toml");
    let (mut guardrails, guardrails_text): (Guardrails, _) = load(&guardrails_path)?;

    unique_ids(
        &services_path,
        &services_text,
        services.services.iter().map(|s| &s.id),
    )?;
    let project_ids = unique_ids(
        &projects_path,
        &projects_text,
        projects.projects.iter().map(|p| &p.id),
    )?;
    unique_ids(
        &evidence_path,
        &evidence_text,
        evidence.evidence.iter().map(|e| &e.id),
    )?;
    unique_ids(
        &consortium_path,
        &consortium_text,
        consortium.members.iter().map(|m| &m.id),
    )?;
    for service in &services.services {
        for project in &service.projects {
            known_id(
                &services_path,
                &services_text,
                project,
                &project_ids,
                "project",
            )?;
        }
    }
    for item in &evidence.evidence {
        if let Some(project) = &item.project {
            known_id(
                &evidence_path,
                &evidence_text,
                project,
                &project_ids,
                "project",
            )?;
        }
    }
    for grant in &mut guardrails.licences {
        if let Some(known) = site.licences.iter().find(|l| l.id == grant.licence) {
            grant.title.get_or_insert_with(|| known.title.clone());
        } else {
            return Err(error_at_value(
                &guardrails_path,
                &guardrails_text,
                grant.licence.as_str(),
                format!(
                    "unknown licence `{}`, expected one of the licences in site.toml: {}",
                    grant.licence,
                    site.licences
                        .iter()
                        .map(|l| l.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    let mut covered = BTreeSet::new();
    for grant in &guardrails.licences {
        for material in &grant.covers {
            if !covered.insert(*material) {
                return Err(error_at_value(
                    &guardrails_path,
                    &guardrails_text,
                    "covers",
                    format!(
                        "{material:?} is covered by two licence grants, expected one grant per kind of material"
                    ),
                ));
            }
        }
    }
    if !covered.contains(&Material::ObservationData) {
        return Err(ContentError::whole(
            &guardrails_path,
            "no licence grant covers \"observation_data\", expected one: the live data routes publish under it",
        ));
    }
    if guardrails.enquiries.agents_may_submit {
        return Err(error_at_value(
            &guardrails_path,
            &guardrails_text,
            "agents_may_submit",
            "agents_may_submit must be false: only a human submits an enquiry",
        ));
    }
    if !guardrails.read_only_calls_have_no_side_effects {
        return Err(error_at_value(
            &guardrails_path,
            &guardrails_text,
            "read_only_calls_have_no_side_effects",
            "read_only_calls_have_no_side_effects must be true: no read call triggers an external action",
        ));
    }

    Ok(ServiceInformation {
        name: org.name,
        description: org.description,
        url: org.url,
        updated: org.updated,
        services: services.services,
        projects: projects.projects,
        evidence: evidence.evidence,
        scope,
        consortium,
        contact,
        guardrails,
    })
}

fn known_id(
    file: &Path,
    text: &str,
    id: &Id,
    known: &BTreeSet<String>,
    what: &str,
) -> Result<(), ContentError> {
    if known.contains(id.as_str()) {
        return Ok(());
    }
    Err(error_at_value(
        file,
        text,
        &format!("\"{id}\""),
        format!(
            "unknown {what} `{id}`, expected one of: {}",
            known.iter().cloned().collect::<Vec<_>>().join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test fixture's service folder, with `file` changed by `edit`,
    /// loaded against the fixture's `site.toml`.
    fn load_edited(file: &str, edit: impl Fn(&str) -> String) -> Result<(), ContentError> {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/content");
        let tmp = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(fixture.join("service")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let text = if name == file { edit(&text) } else { text };
            std::fs::write(tmp.path().join(&name), text).unwrap();
        }
        let (site, _): (Site, String) = load(&fixture.join("site.toml")).unwrap();
        load_service(tmp.path(), &site).map(|_| ())
    }

    fn error(file: &str, edit: impl Fn(&str) -> String) -> String {
        load_edited(file, edit).unwrap_err().to_string()
    }

    #[test]
    fn the_fixture_loads_and_each_cross_file_rule_names_its_line() {
        load_edited("", str::to_owned).unwrap();

        let twice = error("projects.toml", |t| {
            let first = &t[t.find("[[projects]]").unwrap()..];
            let first = &first[..first[1..].find("[[projects]]").unwrap() + 1];
            format!("{t}\n{first}")
        });
        assert!(twice.contains("duplicate id `water-watch`"), "{twice}");
        assert!(twice.contains("projects.toml:"), "{twice}");

        let submit = error("guardrails.toml", |t| {
            t.replace("agents_may_submit = false", "agents_may_submit = true")
        });
        assert!(submit.contains("guardrails.toml:26:"), "{submit}");
        assert!(
            submit.contains("only a human submits an enquiry"),
            "{submit}"
        );

        let licence = error("guardrails.toml", |t| {
            t.replace("licence = \"ODbL-1.0\"", "licence = \"WTFPL\"")
        });
        assert!(licence.contains("unknown licence `WTFPL`"), "{licence}");

        let retention = error("contact.toml", |t| {
            format!("{t}\nenquiry_retention_days = 0\n")
        });
        assert!(retention.contains("expected 1 to 3650 days"), "{retention}");
    }
}
