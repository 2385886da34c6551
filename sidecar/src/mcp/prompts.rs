//! MCP prompts: short, reusable instructions that steer an agent to answer
//! from the published material rather than from memory.

use serde_json::{Map, Value, json};

use super::Version;
use super::jsonrpc::RpcError;
use crate::published::Content;

struct Prompt {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    /// (name, description, required)
    arguments: &'static [(&'static str, &'static str, bool)],
}

const PROMPTS: [Prompt; 2] = [
    Prompt {
        name: "answer_about_organisation",
        title: "Answer a question about the organisation",
        description: "Answer a question about the organisation, its projects and its data from the published service information and documentation, citing the pages used.",
        arguments: &[("question", "The question to answer.", true)],
    },
    Prompt {
        name: "draft_enquiry",
        title: "Help the user draft an enquiry",
        description: "Help the user write an enquiry to the organisation and hand it over for them to submit through the contact form.",
        arguments: &[
            ("topic", "What the user wants to ask about.", true),
            (
                "details",
                "Anything the user has already said about it.",
                false,
            ),
        ],
    },
];

/// `prompts/list`.
pub fn list(version: Version) -> Value {
    let prompts: Vec<Value> = PROMPTS
        .iter()
        .map(|p| {
            let arguments: Vec<Value> = p
                .arguments
                .iter()
                .map(|(name, description, required)| {
                    json!({"name": name, "description": description, "required": required})
                })
                .collect();
            let mut v =
                json!({"name": p.name, "description": p.description, "arguments": arguments});
            if version >= Version::V2025_06_18 {
                v["title"] = json!(p.title);
            }
            v
        })
        .collect();
    json!({ "prompts": prompts })
}

/// `prompts/get`.
pub fn get(content: &Content, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("`name` must name a prompt."))?;
    let prompt = PROMPTS
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => return Err(RpcError::invalid_params("`arguments` must be an object.")),
    };
    for (key, value) in &args {
        if !prompt.arguments.iter().any(|(n, _, _)| n == key) {
            return Err(RpcError::invalid_params(format!(
                "Unknown argument `{key}`."
            )));
        }
        if !value.is_string() {
            return Err(RpcError::invalid_params(format!(
                "Argument `{key}` must be a string."
            )));
        }
    }
    let arg = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or_default()
    };
    for (n, _, required) in prompt.arguments {
        if *required && arg(n).is_empty() {
            return Err(RpcError::invalid_params(format!("Missing argument `{n}`.")));
        }
    }
    let organisation = content
        .service
        .as_ref()
        .map_or("the organisation", |s| s.name.as_str());
    let text = match prompt.name {
        "answer_about_organisation" => format!(
            "Answer this question about {organisation}: {question}\n\n\
            Use only what this server publishes. Start with get_service_information (a section if \
            the question is narrow), then search_documentation and get_document for detail. Quote \
            figures exactly, cite the page URLs you used, and keep each document's licence and \
            attribution with anything you quote. Archived material is historical, not current \
            advice. If the published material does not answer the question, say so and suggest \
            an enquiry through the contact form rather than guessing.",
            question = arg("question"),
        ),
        _ => {
            let details = arg("details");
            let details = if details.is_empty() {
                String::new()
            } else {
                format!(" What the user has said so far: {details}")
            };
            format!(
                "The user wants to contact {organisation} about: {topic}.{details}\n\n\
                First check with get_service_information and search_documentation whether the \
                answer is already published. If an enquiry is still needed, ask the user for \
                anything missing, call prepare_enquiry, and show the user the draft and the form \
                URL. Only the user may submit the enquiry, through the form; never submit it or \
                send it anywhere yourself.",
                topic = arg("topic"),
            )
        }
    };
    Ok(json!({
        "description": prompt.description,
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
    }))
}
