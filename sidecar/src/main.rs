//! `sidecar`: parse flags, start logging, run, map the outcome to an exit
//! code (0 after a clean shutdown, 1 on a runtime error, 2 on bad usage;
//! `sidecar::startup` says how a failed start is reported).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use sidecar::config::{Cli, Command, DatabaseArgs, ImportArgs};
use sidecar::store::import::ImportReport;
use sidecar::store::{SampleSize, Store};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return sidecar::startup::refused(e),
    };
    match cli.command {
        Command::Serve(args) => sidecar::startup::serve(args),
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
        Command::Backup(args) => copy("backup", &args.db, |db| {
            sidecar::store::sqlite::backup::backup(&db, &args.to)
                .map(|c| format!("backed up {} to {}: {c}", db.display(), args.to.display()))
        }),
        Command::Restore(args) => copy("restore", &args.db, |db| {
            sidecar::store::sqlite::backup::restore(&args.from, &db)
                .map(|c| format!("restored {} as {}: {c}", args.from.display(), db.display()))
        }),
    }
}

/// `sidecar backup` and `sidecar restore`: SQLite only (PostgreSQL has
/// `pg_dump` and `pg_restore`).
fn copy(
    command: &str,
    db: &DatabaseArgs,
    run: impl FnOnce(std::path::PathBuf) -> anyhow::Result<String>,
) -> ExitCode {
    let outcome = match db.database.as_deref() {
        Some(url) if sidecar::store::is_postgres(url) => Err(anyhow::anyhow!(
            "PostgreSQL databases are backed up with pg_dump and restored with pg_restore \
             (docs/operating.md, \"Backups\")"
        )),
        url => sidecar::store::sqlite_file(url, &db.data_dir)
            .and_then(|path| sidecar::store::sqlite::backup::timed(|| run(path))),
    };
    match outcome {
        Ok((line, took)) => {
            println!("{line} in {:.2} s", took.as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sidecar {command}: {e:#}");
            ExitCode::FAILURE
        }
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
