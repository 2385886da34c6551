//! The Markdown of each service-information page: the index, services,
//! projects, evidence, scope, consortium, contact and guardrails.

use super::*;

pub(super) fn index(s: &ServiceInformation, w: &Words<'_>) -> Result<String> {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", s.description.trim());
    let date = s.updated.to_string();
    let _ = writeln!(out, "{}\n", w.fill("about.generated", &[("date", &date)])?);
    let _ = writeln!(
        out,
        "## {}\n\n| | |\n|---|---|",
        w.get("about.at_a_glance")?
    );
    let active = s
        .projects
        .iter()
        .filter(|p| p.status == ProjectStatus::Active)
        .count();
    let mut countries: Vec<&str> = s
        .consortium
        .members
        .iter()
        .map(|m| m.country.as_str())
        .collect();
    countries.sort();
    countries.dedup();
    let rows = [
        (
            "services",
            w.fill(
                "about.services_value",
                &[
                    ("count", &s.services.len().to_string()),
                    ("url", &w.url("/docs/about/services/")),
                ],
            )?,
        ),
        (
            "projects",
            w.fill(
                "about.projects_value",
                &[
                    ("count", &s.projects.len().to_string()),
                    ("active", &active.to_string()),
                    ("url", &w.url("/docs/about/projects/")),
                ],
            )?,
        ),
        (
            "evidence",
            w.fill(
                "about.evidence_value",
                &[
                    ("count", &s.evidence.len().to_string()),
                    ("url", &w.url("/docs/about/evidence/")),
                ],
            )?,
        ),
        (
            "consortium",
            w.fill(
                "about.consortium_value",
                &[
                    ("members", &s.consortium.members.len().to_string()),
                    ("countries", &countries.len().to_string()),
                    ("url", &w.url("/docs/about/consortium/")),
                ],
            )?,
        ),
        (
            "contact",
            w.fill(
                "about.contact_value",
                &[
                    ("email", s.contact.email.as_str()),
                    ("form", &w.url(s.contact.form_url.as_str())),
                    ("url", &w.url("/docs/about/contact/")),
                ],
            )?,
        ),
    ];
    for (label, value) in rows {
        let _ = writeln!(
            out,
            "| {} | {value} |",
            w.get(&format!("about.glance_{label}"))?
        );
    }
    let _ = writeln!(out, "\n## {}\n", w.get("about.scope_heading")?);
    let _ = writeln!(
        out,
        "{}\n",
        w.fill(
            "about.scope",
            &[
                ("summary", s.scope.summary.trim()),
                ("url", &w.url("/docs/about/scope/")),
            ],
        )?
    );
    let _ = writeln!(out, "## {}\n", w.get("about.agents_heading")?);
    let _ = writeln!(
        out,
        "{}",
        w.fill(
            "about.agents",
            &[
                ("summary", s.guardrails.summary.trim()),
                ("url", &w.url("/docs/about/guardrails/")),
            ],
        )?
    );
    Ok(out)
}

pub(super) fn project_title<'a>(s: &'a ServiceInformation, id: &'a str) -> &'a str {
    s.projects
        .iter()
        .find(|p| p.id.as_str() == id)
        .map_or(id, |p| p.title.as_str())
}

pub(super) fn services(s: &ServiceInformation) -> String {
    let mut out = String::new();
    out.push_str("| Service | Status | Access |\n|---|---|---|\n");
    for sv in &s.services {
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | {} |",
            cell(&sv.title),
            sv.id,
            service_status(sv.status),
            access(sv.access)
        );
    }
    out.push('\n');
    for sv in &s.services {
        let _ = writeln!(out, "## {} {{#{}}}\n", sv.title, sv.id);
        let _ = writeln!(out, "{}\n", sv.summary.trim());
        out.push_str("| | |\n|---|---|\n");
        let _ = writeln!(out, "| Status | {} |", service_status(sv.status));
        let _ = writeln!(out, "| Access | {} |", access(sv.access));
        let _ = writeln!(out, "| For | {} |", cell(&sv.audience.join(", ")));
        if !sv.projects.is_empty() {
            let links: Vec<String> = sv
                .projects
                .iter()
                .map(|p| {
                    format!(
                        "[{}](/docs/about/projects/#{p})",
                        cell(project_title(s, p.as_str()))
                    )
                })
                .collect();
            let _ = writeln!(out, "| Projects | {} |", links.join(", "));
        }
        let _ = writeln!(out, "| Read more | [{}]({}) |\n", sv.url, sv.url);
        if sv.access == Access::OnRequest {
            let _ = writeln!(
                out,
                "To ask for this service, write through the [enquiry form]({}).\n",
                s.contact.form_url
            );
        }
    }
    out
}

pub(super) fn projects(s: &ServiceInformation, w: &Words<'_>) -> Result<String> {
    let t = |key: &str| w.get(&format!("about.projects.{key}"));
    let status = |p: ProjectStatus| {
        t(match p {
            ProjectStatus::Active => "active",
            ProjectStatus::Completed => "completed",
            ProjectStatus::Archived => "archived",
        })
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| {} | {} | {} |\n|---|---|---|",
        t("project")?,
        t("status")?,
        t("period")?
    );
    for p in &s.projects {
        let start = p.started.to_string();
        let period = match &p.ended {
            Some(end) => w.fill(
                "about.projects.period_ended",
                &[("start", &start), ("end", &end.to_string())],
            )?,
            None => w.fill("about.projects.period_running", &[("start", &start)])?,
        };
        let _ = writeln!(
            out,
            "| [{}](#{}) | {} | {period} |",
            cell(&p.title),
            p.id,
            status(p.status)?
        );
    }
    out.push('\n');
    for p in &s.projects {
        let _ = writeln!(out, "## {} {{#{}}}\n", p.title, p.id);
        let _ = writeln!(out, "{}\n", p.summary.trim());
        out.push_str("| | |\n|---|---|\n");
        let _ = writeln!(out, "| {} | {} |", t("status")?, status(p.status)?);
        let _ = writeln!(out, "| {} | {} |", t("started")?, p.started);
        if let Some(end) = &p.ended {
            let _ = writeln!(out, "| {} | {end} |", t("ended")?);
        }
        let _ = writeln!(out, "| {} | {} |", t("themes")?, cell(&p.themes.join(", ")));
        if let Some(f) = &p.funding {
            let _ = writeln!(out, "| {} | {} |", t("funding")?, cell(f));
        }
        let services: Vec<String> = s
            .services
            .iter()
            .filter(|sv| sv.projects.iter().any(|id| id == &p.id))
            .map(|sv| {
                format!(
                    "[{}]({}#{})",
                    cell(&sv.title),
                    w.url("/docs/about/services/"),
                    sv.id
                )
            })
            .collect();
        if !services.is_empty() {
            let _ = writeln!(out, "| {} | {} |", t("services")?, services.join(", "));
        }
        let more = w.url(p.url.as_str());
        let _ = writeln!(out, "| {} | [{more}]({more}) |\n", t("read_more")?);
        let results: Vec<String> = s
            .evidence
            .iter()
            .filter(|e| e.project.as_ref() == Some(&p.id))
            .map(|e| {
                format!(
                    "- [{}]({}#{}) ({})",
                    e.title,
                    w.url("/docs/about/evidence/"),
                    e.id,
                    e.published
                )
            })
            .collect();
        if !results.is_empty() {
            let _ = writeln!(out, "{}\n\n{}\n", t("results")?, results.join("\n"));
        }
    }
    Ok(out)
}

pub(super) fn evidence(s: &ServiceInformation) -> String {
    let mut out = String::from(
        "Each item below is a published result. DOIs resolve through doi.org; items without a DOI link to their repository record or page.\n\n",
    );
    let kinds = [
        EvidenceKind::Publication,
        EvidenceKind::Dataset,
        EvidenceKind::Report,
        EvidenceKind::CaseStudy,
        EvidenceKind::Software,
    ];
    for kind in kinds {
        let items: Vec<_> = s.evidence.iter().filter(|e| e.kind == kind).collect();
        if items.is_empty() {
            continue;
        }
        let (heading, _) = evidence_kind(kind);
        let _ = writeln!(out, "## {heading}\n");
        for e in items {
            let _ = writeln!(out, "### {} {{#{}}}\n", e.title, e.id);
            let _ = writeln!(out, "{}\n", e.summary.trim());
            out.push_str("| | |\n|---|---|\n");
            let _ = writeln!(out, "| Kind | {} |", evidence_kind(e.kind).1);
            let _ = writeln!(out, "| Published | {} |", e.published);
            if let Some(doi) = &e.doi {
                let _ = writeln!(out, "| DOI | [{doi}](https://doi.org/{doi}) |");
            }
            if let Some(p) = &e.project {
                let _ = writeln!(
                    out,
                    "| Project | [{}](/docs/about/projects/#{p}) |",
                    cell(project_title(s, p.as_str()))
                );
            }
            let _ = writeln!(out, "| Where | [{}]({}) |\n", e.url, e.url);
        }
    }
    out
}

pub(super) fn scope(s: &ServiceInformation) -> String {
    let sc = &s.scope;
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", sc.summary.trim());
    let _ = writeln!(out, "## Themes\n\n{}", list(&sc.themes));
    let _ = writeln!(out, "## Regions\n\n{}", list(&sc.regions));
    let _ = writeln!(
        out,
        "## What we can help with\n\n{}\nFor any of these, write through the [enquiry form]({}).\n",
        list(&sc.in_scope),
        s.contact.form_url
    );
    let _ = writeln!(
        out,
        "## What we do not deal with\n\n{}\nFor these questions, the observatory is not the right address; where the list names one, please ask the authority it names.",
        list(&sc.out_of_scope)
    );
    out
}

pub(super) fn consortium(s: &ServiceInformation, w: &Words<'_>) -> Result<String> {
    let t = |key: &str| w.get(&format!("about.consortium.{key}"));
    let c = &s.consortium;
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", c.summary.trim());
    let _ = writeln!(
        out,
        "## {}\n\n| {} | {} | {} |\n|---|---|---|",
        t("members")?,
        t("member")?,
        t("country")?,
        t("role")?
    );
    for m in &c.members {
        let _ = writeln!(
            out,
            "| [{}]({}) | {} | {} |",
            cell(&m.name),
            m.url,
            w.country(m.country.as_str()),
            cell(&m.role)
        );
    }
    Ok(out)
}

pub(super) fn contact(s: &ServiceInformation) -> String {
    let c = &s.contact;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "A person answers every enquiry. The quickest way to reach us is the [enquiry form]({}); e-mail works as well.\n",
        c.form_url
    );
    out.push_str("| | |\n|---|---|\n");
    let _ = writeln!(out, "| E-mail | [{}](mailto:{}) |", c.email, c.email);
    let _ = writeln!(out, "| Enquiry form | [{}]({}) |", c.form_url, c.form_url);
    if let Some(addr) = &c.postal_address {
        let _ = writeln!(out, "| Postal address | {} |", cell(addr));
    }
    let languages: Vec<String> = c.languages.iter().map(|l| language(l)).collect();
    let _ = writeln!(out, "| Languages | {} |", languages.join(", "));
    let _ = writeln!(out, "| Response time | {} |\n", cell(&c.response_time));
    out.push_str("## Before you write\n\n");
    let _ = writeln!(
        out,
        "Check the [scope](/docs/about/scope/) page first: some questions, such as whether a particular water body is safe, belong with a local authority. Please do not send personal data about third parties.\n"
    );
    out.push_str("## Enquiries prepared by AI agents\n\n");
    let e = &s.guardrails.enquiries;
    let _ = writeln!(
        out,
        "An AI agent {} prepare an enquiry for its user, but {} submit it: the user reviews the draft and sends it through the [form]({}) themselves.",
        if e.agents_may_prepare {
            "may"
        } else {
            "may not"
        },
        if e.agents_may_submit {
            "may also"
        } else {
            "may never"
        },
        e.form_url
    );
    out
}

pub(super) fn guardrails(s: &ServiceInformation) -> String {
    let g = &s.guardrails;
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", g.summary.trim());
    if g.read_only_calls_have_no_side_effects {
        out.push_str("Every read call (each GET route and each MCP tool) is free of side effects: it changes nothing and contacts no one.\n\n");
    }
    let _ = writeln!(out, "## Agents may\n\n{}", list(&g.agents_may));
    let _ = writeln!(out, "## Agents must not\n\n{}", list(&g.agents_must_not));
    out.push_str("## Enquiries\n\n| | |\n|---|---|\n");
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let _ = writeln!(
        out,
        "| Agents may prepare an enquiry | {} |",
        yes_no(g.enquiries.agents_may_prepare)
    );
    let _ = writeln!(
        out,
        "| Agents may submit an enquiry | {} |",
        yes_no(g.enquiries.agents_may_submit)
    );
    let _ = writeln!(
        out,
        "| Explicit approval of the user required | {} |",
        yes_no(g.enquiries.requires_explicit_user_approval)
    );
    let _ = writeln!(
        out,
        "| Where the user submits | [{}]({}) |\n",
        g.enquiries.form_url, g.enquiries.form_url
    );
    out.push_str("## Licences\n\n| Material | Licence | Attribution |\n|---|---|---|\n");
    for l in &g.licences {
        let _ = writeln!(
            out,
            "| {} | [{}]({}) | {} |",
            cell(&l.applies_to),
            cell(l.title.as_deref().unwrap_or(l.licence.as_str())),
            l.url,
            cell(l.attribution.as_deref().unwrap_or("none required"))
        );
    }
    out
}
