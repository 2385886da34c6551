//! Shared by the `chat_*` tests: the real request handler over the built
//! sample site (the directory of `CONTRACT_OPENAPI`, whose passages the
//! chat ranks), with live data and contact state over a real database.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use sidecar::AppState;
use sidecar::chat::Chat;
use sidecar::config::Config;
use sidecar::contact::{Contact, ContactConfig};
use sidecar::http::ratelimit::RateLimiter;
use sidecar::live::{Live, LiveConfig};
use sidecar::store::{SampleSize, Store};

use crate::contact::{KEY, SITE, send};
use crate::handler::Answer;
use crate::live::{Backend, TestDb, open};

pub const PATH: &str = "/api/chat.php";

/// The built sample site, or `None` when the contract tests are skipped.
pub fn built_dist() -> Option<PathBuf> {
    let doc = crate::openapi::contract()?;
    drop(doc);
    let path = std::env::var("CONTRACT_OPENAPI").ok()?;
    Some(PathBuf::from(path).parent()?.to_path_buf())
}

pub struct Env {
    pub state: AppState,
    pub db: TestDb,
}

/// The handler over the built site, with sample live data and the chat's
/// rate limit set to `limit`.
pub async fn env(backend: Backend, name: &str, limit: u32) -> Option<Env> {
    let dist = built_dist()?;
    let db = open(backend, name, SampleSize::Default).await?;
    let mut config = Config::defaults(&dist);
    config.max_body_bytes = 16 * 1024;
    let mut state =
        AppState::load(config, "127.0.0.1:8080".parse().unwrap()).expect("the built site loads");
    let cfg = ContactConfig::default();
    state.contact = Some(Arc::new(Contact::new(db.store.clone(), KEY.to_vec(), cfg)));
    let live = LiveConfig {
        problem_base: SITE.into(),
        ..LiveConfig::default()
    };
    state.live = Some(Arc::new(Live::new(db.store.clone(), live)));
    add_chat(&mut state, db.store.clone(), limit);
    Some(Env { state, db })
}

/// The chat over `store`, `limit` questions per client in the default
/// window, quoting figures from the state's live data.
pub fn add_chat(state: &mut AppState, store: Store, limit: u32) {
    let window = ContactConfig::default().rate_window;
    let limiter = RateLimiter::new(store, window, Vec::new());
    let chat = Chat::new(
        limiter,
        limit,
        state.live.clone(),
        state.metrics.chat.clone(),
    );
    state.chat = Some(Arc::new(chat));
}

/// Asks `message` as the client at `peer`, from the site's origin.
pub async fn ask(state: &AppState, peer: &str, message: &str) -> Answer {
    ask_with(state, peer, &json!({ "message": message })).await
}

pub async fn ask_with(state: &AppState, peer: &str, body: &Value) -> Answer {
    send(
        state,
        "POST",
        PATH,
        peer,
        &[("content-type", "application/json"), ("origin", SITE)],
        body.to_string(),
    )
    .await
}
