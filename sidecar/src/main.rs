//! `sidecar`: parse flags, start logging, run, map the outcome to an exit
//! code (0 after a clean shutdown, 1 on a runtime error, 2 on bad usage).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use sidecar::config::{Cli, Command, Config, ImportArgs};
use sidecar::store::import::ImportReport;
use sidecar::store::{SampleSize, Store};

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
        Command::Import(args) => match import(&args) {
            Ok(report) => {
                println!(
                    "imported {} observations at {} sites from {}",
                    report.observations,
                    report.sites,
                    args.file.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("sidecar import: {}: {e:#}", args.file.display());
                ExitCode::FAILURE
            }
        },
    }
}

/// Opens the configured database (migrating it, adding no sample data) and
/// imports the file in one transaction.
fn import(args: &ImportArgs) -> anyhow::Result<ImportReport> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let store = Store::open(args.database.as_deref(), &args.data_dir, SampleSize::None).await?;
        Ok(sidecar::store::import::run(&store, &args.file).await?)
    })
}
