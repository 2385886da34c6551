//! Pages generated from the service information (`content/service/*.toml`)
//! under `/docs/about/`: services, projects, evidence, scope, consortium,
//! contact, guardrails and the privacy notice.
//!
//! Each page is written as Markdown and then goes through the same pipeline
//! as a document of `content/docs/` (breadcrumbs, previous/next, Markdown
//! twin, sitemap, llms.txt, search index), so generated and written pages
//! cannot drift apart in shape. They render with `service.html`.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::content::Document;
use crate::model::{
    Access, Date, EvidenceKind, FrontMatter, LicenceId, ProjectStatus, ServiceInformation,
    ServiceStatus,
};

mod pages;
mod privacy;
use pages::*;
pub use privacy::URL as PRIVACY_URL;

/// Site path of the section.
pub const URL: &str = "/docs/about/";
/// Template every generated page renders with.
pub const TEMPLATE: &str = "service.html";

/// A generated document: the fields a content document would have.
pub fn document(url: &str, front: FrontMatter, body: String) -> Document {
    let segments = url.trim_start_matches("/docs/").trim_end_matches('/');
    Document {
        source: PathBuf::from(format!("(generated){url}")),
        file: None,
        url: url.to_owned(),
        out_dir: url.trim_start_matches('/').to_owned(),
        section: segments.split('/').next().unwrap_or("").to_owned(),
        is_index: url == URL,
        front,
        body,
        body_line: 1,
        translation: None,
    }
}

/// Front matter of a generated page.
pub fn front(
    title: &str,
    summary: &str,
    weight: i64,
    template: &str,
    licence: Option<LicenceId>,
    attribution: Option<String>,
    updated: &Date,
) -> FrontMatter {
    FrontMatter {
        title: title.to_owned(),
        summary: summary.to_owned(),
        weight,
        updated: Some(updated.clone()),
        licence,
        attribution,
        template: Some(template.to_owned()),
        slug: None,
        aliases: Vec::new(),
        draft: false,
        tags: Vec::new(),
        tags_enabled: false,
        audience: Default::default(),
    }
}

fn cell(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn service_status(s: ServiceStatus) -> &'static str {
    match s {
        ServiceStatus::Operational => "Operational",
        ServiceStatus::Beta => "Beta",
        ServiceStatus::Preserved => "Preserved (read-only)",
        ServiceStatus::Retired => "Retired",
    }
}

fn access(a: Access) -> &'static str {
    match a {
        Access::Open => "Open: use it without asking",
        Access::OnRequest => "On request, through the contact form",
    }
}

fn project_status(s: ProjectStatus) -> &'static str {
    match s {
        ProjectStatus::Active => "Active",
        ProjectStatus::Completed => "Completed",
        ProjectStatus::Archived => "Archived (read-only)",
    }
}

fn evidence_kind(k: EvidenceKind) -> (&'static str, &'static str) {
    match k {
        EvidenceKind::Publication => ("Publications", "publication"),
        EvidenceKind::Dataset => ("Datasets", "dataset"),
        EvidenceKind::Report => ("Reports", "report"),
        EvidenceKind::CaseStudy => ("Case studies", "case study"),
        EvidenceKind::Software => ("Software", "software"),
    }
}

fn language(code: &str) -> String {
    let name = match code {
        "en" => "English",
        "nl" => "Dutch",
        "de" => "German",
        "fr" => "French",
        "it" => "Italian",
        "es" => "Spanish",
        "fi" => "Finnish",
        "sv" => "Swedish",
        "da" => "Danish",
        "pl" => "Polish",
        "pt" => "Portuguese",
        _ => return code.to_owned(),
    };
    format!("{name} (`{code}`)")
}

fn country(code: &str) -> &str {
    crate::data_facts::countries::by_code(code).map_or(code, |c| c.name)
}

fn list(items: &[String]) -> String {
    items.iter().map(|i| format!("- {i}\n")).collect()
}

/// Every generated page of the section, the section index first.
pub fn documents(
    service: &ServiceInformation,
    licence: Option<LicenceId>,
    attribution: Option<String>,
) -> Vec<Document> {
    let updated = &service.updated;
    let page = |slug: &str, title: &str, summary: &str, weight: i64, body: String| {
        document(
            &format!("{URL}{slug}"),
            front(
                title,
                summary,
                weight,
                TEMPLATE,
                licence.clone(),
                attribution.clone(),
                updated,
            ),
            body,
        )
    };
    let name = &service.name;
    vec![
        page(
            "",
            &format!("About {name}"),
            &format!(
                "Who {name} is, what it offers and how to reach it: the published service information as pages."
            ),
            40,
            index(service),
        ),
        page(
            "services/",
            "Services",
            &format!(
                "What {name} offers, to whom, and whether you can use it straight away or on request."
            ),
            10,
            services(service),
        ),
        page(
            "projects/",
            "Projects",
            &format!("The projects {name} runs and ran, with their dates, themes and funding."),
            20,
            projects(service),
        ),
        page(
            "evidence/",
            "Evidence",
            "Publications, datasets, reports, case studies and software that back what the observatory says of its work.",
            30,
            evidence(service),
        ),
        page(
            "scope/",
            "Scope",
            "Which themes and regions the observatory covers, what it can help with, and what it does not deal with.",
            40,
            scope(service),
        ),
        page(
            "consortium/",
            "Consortium",
            "The organisations that run the observatory and what each contributes.",
            50,
            consortium(service),
        ),
        page(
            "contact/",
            "Contact",
            "The observatory's public contact data: e-mail, enquiry form, postal address, languages and response time.",
            60,
            contact(service),
        ),
        page(
            "guardrails/",
            "Guardrails and licences",
            "What AI agents acting for users may and may not do here, and which licence covers which material.",
            70,
            guardrails(service),
        ),
        page(
            "privacy/",
            "Privacy",
            "What the service keeps about you, why and for how long, and how to see or delete it.",
            80,
            privacy::privacy(service),
        ),
    ]
}
