//! `sidecar`: parse flags, start logging, run, map the outcome to an exit
//! code (0 after a clean shutdown, 1 on a runtime error, 2 on bad usage;
//! `sidecar::startup` says how a failed start is reported).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use sidecar::config::{Cli, Command, ImportArgs};
use sidecar::store::import::ImportReport;
use sidecar::store::{SampleSize, Store};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return sidecar::startup::refused(e),
    };
    match cli.command {
        Command::Serve(args) => sidecar::startup::serve(*args),
        Command::Healthcheck(args) => sidecar::healthcheck::run(&args),
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
