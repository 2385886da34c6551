//! Starting `sidecar serve`, and failing to start in a way an operator can
//! act on: every reason the process cannot start ends in exactly one log
//! line, in the configured log format and stream, that names the setting at
//! fault by its environment variable and its flag (`SIDECAR_DIST (--dist):
//! …`), because in a container the environment is where settings come from.
//!
//! Exit codes: 0 after a clean shutdown, 1 when the server cannot start or
//! stops on an error (missing `dist/`, unreachable database, port taken),
//! 2 for a value that is wrong in itself (clap's convention).

use std::process::ExitCode;

use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

pub use crate::config::Setting;
use crate::config::{Cli, Config, LogFormat, LogOutput, ServeArgs};
use crate::logging;

/// `sidecar serve`: validate, start logging, run until a signal.
pub fn serve(args: ServeArgs) -> ExitCode {
    let (format, output) = (args.log_format, args.log_output);
    let config = match Config::from_args(args) {
        Ok(config) => config,
        Err(e) => {
            let (message, env) = name_env_twins(&e.0);
            fail_early(format, output, env, &message);
            return ExitCode::from(2);
        }
    };
    if let Err(e) = logging::init(config.log_format, config.log_output, &config.log) {
        let (message, env) = name_env_twins(&format!("{e:#}"));
        fail_early(format, output, env, &message);
        return ExitCode::from(2);
    }
    match crate::server::run(config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            match e.downcast_ref::<Setting>() {
                Some(setting) => tracing::error!(variable = setting.env, "{e:#}"),
                None => tracing::error!("{e:#}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// A command line clap refused. A bad value of a flag that has an
/// environment twin becomes one log line naming both (clap names only the
/// flag, though in a container the value came from the environment); help,
/// version and other usage errors are clap's own output.
pub fn refused(error: clap::Error) -> ExitCode {
    let value_error = matches!(
        error.kind(),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation | ErrorKind::NoEquals
    );
    let arg = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) if value_error => arg.clone(),
        _ => error.exit(),
    };
    let long = arg.split_whitespace().next().unwrap_or_default();
    let argv: Vec<String> = std::env::args().collect();
    let Some(env) = env_twin(subcommand(&argv), long) else {
        error.exit()
    };
    let line = error.to_string();
    let detail = line
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ");
    let from_env = !argv
        .iter()
        .any(|a| a == long || a.starts_with(&format!("{long}=")));
    let source = if from_env {
        ", from the environment"
    } else {
        ""
    };
    let mut message = format!("{env} ({long}{source}): {detail}");
    if let Some(ContextValue::Strings(values)) = error.get(ContextKind::ValidValue) {
        message.push_str(&format!(" (possible values: {})", values.join(", ")));
    }
    let (format, output) = guess_log_settings(&argv);
    fail_early(format, output, Some(env), &message);
    ExitCode::from(2)
}

/// The subcommand named on the command line, if any.
fn subcommand(argv: &[String]) -> Option<String> {
    let cli = Cli::command();
    argv.iter()
        .skip(1)
        .find(|a| cli.find_subcommand(a.as_str()).is_some())
        .cloned()
}

/// The environment twin of flag `long` (`--dist` → `SIDECAR_DIST`), looked
/// up in the subcommand's arguments (or any subcommand's).
fn env_twin(subcommand: Option<String>, long: &str) -> Option<String> {
    let cli = Cli::command();
    let name = long.strip_prefix("--")?;
    cli.get_subcommands()
        .filter(|s| subcommand.as_deref().is_none_or(|n| s.get_name() == n))
        .flat_map(|s| s.get_arguments())
        .find(|a| a.get_long() == Some(name))
        .and_then(|a| a.get_env())
        .map(|e| e.to_string_lossy().into_owned())
}

/// Rewrites each `--flag` of `serve` in `message` as `SIDECAR_FLAG
/// (--flag)`; returns the message and the first variable named.
pub fn name_env_twins(message: &str) -> (String, Option<String>) {
    let mut out = String::with_capacity(message.len() + 32);
    let mut first = None;
    let mut rest = message;
    while let Some(i) = rest.find("--") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(after.len());
        let flag = &rest[i..i + 2 + len];
        match env_twin(Some("serve".into()), flag) {
            Some(env) => {
                out.push_str(&format!("{env} ({flag})"));
                first.get_or_insert(env);
            }
            None => out.push_str(flag),
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    (out, first)
}

/// The log format and stream the command line asks for, read loosely
/// (before clap has accepted it) so that even a refused command line is
/// reported in the format the log collector expects.
fn guess_log_settings(argv: &[String]) -> (LogFormat, LogOutput) {
    let value = |flag: &str, env: &str| {
        let from_args = argv.iter().enumerate().find_map(|(i, a)| {
            if a == flag {
                argv.get(i + 1).cloned()
            } else {
                a.strip_prefix(&format!("{flag}=")).map(str::to_owned)
            }
        });
        from_args.or_else(|| std::env::var(env).ok())
    };
    let format = match value("--log-format", "SIDECAR_LOG_FORMAT").as_deref() {
        Some("json") => LogFormat::Json,
        _ => LogFormat::Text,
    };
    let output = match value("--log-output", "SIDECAR_LOG_OUTPUT").as_deref() {
        Some("stdout") => LogOutput::Stdout,
        _ => LogOutput::Stderr,
    };
    (format, output)
}

/// One error line before the configured logger exists.
fn fail_early(format: LogFormat, output: LogOutput, variable: Option<String>, message: &str) {
    if logging::init(format, output, "error").is_err() {
        eprintln!("sidecar: {message}");
        return;
    }
    match variable {
        Some(variable) => tracing::error!(variable, "{message}"),
        None => tracing::error!("{message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_named_with_their_environment_twins() {
        let (m, first) = name_env_twins("--max-connections must be at least 1");
        assert_eq!(
            m,
            "SIDECAR_MAX_CONNECTIONS (--max-connections) must be at least 1"
        );
        assert_eq!(first.as_deref(), Some("SIDECAR_MAX_CONNECTIONS"));
        let (m, first) = name_env_twins(
            "--challenge-counter-min must not exceed --challenge-counter-max (at most 4294967295)",
        );
        assert_eq!(
            m,
            "SIDECAR_CHALLENGE_COUNTER_MIN (--challenge-counter-min) must not exceed \
             SIDECAR_CHALLENGE_COUNTER_MAX (--challenge-counter-max) (at most 4294967295)"
        );
        assert_eq!(first.as_deref(), Some("SIDECAR_CHALLENGE_COUNTER_MIN"));
        let (m, first) = name_env_twins("--no-such-flag and -- alone");
        assert_eq!(m, "--no-such-flag and -- alone");
        assert_eq!(first, None);
    }

    #[test]
    fn twins_are_found_per_subcommand() {
        assert_eq!(
            env_twin(Some("serve".into()), "--dist").as_deref(),
            Some("SIDECAR_DIST")
        );
        assert_eq!(
            env_twin(Some("healthcheck".into()), "--url").as_deref(),
            Some("SIDECAR_HEALTHCHECK_URL")
        );
        assert_eq!(env_twin(Some("import".into()), "--url"), None);
        assert_eq!(
            env_twin(None, "--timeout-ms").as_deref(),
            Some("SIDECAR_HEALTHCHECK_TIMEOUT_MS")
        );
    }

    #[test]
    fn settings_name_variable_and_flag() {
        let e = anyhow::anyhow!("no such file")
            .context("loading dist")
            .context(Setting::DIST)
            .context("starting");
        assert_eq!(e.downcast_ref::<Setting>(), Some(&Setting::DIST));
        assert_eq!(
            format!("{e:#}"),
            "starting: SIDECAR_DIST (--dist): loading dist: no such file"
        );
    }
}
