//! `sidecar`: parse flags, start logging, run, map the outcome to an exit
//! code (0 after a clean shutdown, 1 on a runtime error, 2 on bad usage).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use sidecar::config::{Cli, Command, Config};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => {
            let config = match Config::from_args(args) {
                Ok(config) => config,
                Err(e) => {
                    eprintln!("sidecar: {e}");
                    return ExitCode::from(2);
                }
            };
            if let Err(e) = sidecar::logging::init(config.log_format, &config.log) {
                eprintln!("sidecar: {e:#}");
                return ExitCode::from(2);
            }
            match sidecar::server::run(config) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("sidecar: {e:#}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
