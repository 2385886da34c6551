//! Pages generated from the service information (`content/service/*.toml`)
//! under `/docs/about/`: services, projects, evidence, scope, consortium,
//! contact, guardrails and the privacy notice.
//!
//! Each page is written as Markdown and then goes through the same pipeline
//! as a document of `content/docs/` (breadcrumbs, previous/next, Markdown
//! twin, sitemap, llms.txt, search index), so generated and written pages
//! cannot drift apart in shape. They render with `service.html`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;

use crate::content::{Document, Translation};
use crate::messages::Messages;
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

/// The pages of the section written in every language with pages, their
/// words from the message files (decision 0268); the others are in the
/// default language only.
pub const TRANSLATED: [&str; 4] = [
    URL,
    "/docs/about/projects/",
    "/docs/about/consortium/",
    privacy::URL,
];

/// The words of one language's generated pages: the message files'
/// `[about]`, `[privacy]` and `[countries]`, and where each page is in that
/// language.
pub struct Words<'a> {
    messages: &'a Messages,
    language: &'a str,
    /// The pages in this language by their address in the default
    /// language; a page not in it is linked in the default language.
    pages: HashMap<String, String>,
    /// The consortium member that coordinates it, by id (found by its role
    /// in the default language).
    coordinator: Option<String>,
}

impl<'a> Words<'a> {
    pub fn new(
        messages: &'a Messages,
        language: &'a str,
        default: &ServiceInformation,
        pages: HashMap<String, String>,
    ) -> Self {
        let coordinator = default
            .consortium
            .members
            .iter()
            .find(|m| m.role.to_lowercase().starts_with("coordinator"))
            .map(|m| m.id.as_str().to_owned());
        Self {
            messages,
            language,
            pages,
            coordinator,
        }
    }

    fn get(&self, key: &str) -> Result<&'a str> {
        self.messages
            .get(self.language, key)
            .map_err(anyhow::Error::msg)
    }

    /// The words `key` with each `{name}` of `vars` filled in.
    fn fill(&self, key: &str, vars: &[(&str, &str)]) -> Result<String> {
        self.messages
            .fill(self.language, key, vars)
            .map_err(anyhow::Error::msg)
    }

    /// The address of `url` (a page in the default language) in this
    /// language where it exists, else `url`.
    fn url(&self, url: &str) -> String {
        self.pages
            .get(url)
            .cloned()
            .unwrap_or_else(|| url.to_owned())
    }

    /// A country's name in this language (`[countries]`), else in English.
    fn country(&self, code: &str) -> String {
        self.get(&format!("countries.{code}"))
            .map_or_else(|_| country(code).to_owned(), str::to_owned)
    }

    fn coordinator<'s>(&self, s: &'s ServiceInformation) -> Option<&'s crate::model::Member> {
        let id = self.coordinator.as_deref()?;
        s.consortium.members.iter().find(|m| m.id.as_str() == id)
    }
}

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

/// Every generated page of the section, the section index first: in the
/// default language, all of them; in another (`service` then holds its
/// texts), the [`TRANSLATED`] ones, as translations under `/{code}`.
pub fn documents(
    service: &ServiceInformation,
    licence: Option<LicenceId>,
    attribution: Option<String>,
    words: &Words<'_>,
    translation: Option<&str>,
) -> Result<Vec<Document>> {
    let updated = &service.updated;
    let page = |slug: &str, title: &str, summary: &str, weight: i64, body: String| {
        let mut d = document(
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
        );
        if let Some(code) = translation {
            d.url = format!("/{code}{}", d.url);
            d.out_dir = d.url.trim_start_matches('/').to_owned();
            d.translation = Some(Translation {
                language: code.to_owned(),
                of: format!("{URL}{slug}"),
            });
        }
        d
    };
    let name = &service.name;
    let named = |key: &str| words.fill(key, &[("name", name)]);
    let mut pages = vec![
        page(
            "",
            &named("about.title")?,
            &named("about.summary")?,
            40,
            index(service, words)?,
        ),
        page(
            "projects/",
            &named("about.projects.title")?,
            &named("about.projects.summary")?,
            20,
            projects(service, words)?,
        ),
        page(
            "consortium/",
            &named("about.consortium.title")?,
            &named("about.consortium.summary")?,
            50,
            consortium(service, words)?,
        ),
        page(
            "privacy/",
            &named("privacy.title")?,
            &named("privacy.summary")?,
            80,
            privacy::privacy(service, words)?,
        ),
    ];
    if translation.is_some() {
        return Ok(pages);
    }
    pages.extend([
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
    ]);
    Ok(pages)
}
