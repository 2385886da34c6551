//! `sidecar`: parse flags, start logging, run, map the outcome to an exit
//! code (0 after a clean shutdown, 1 on a runtime error, 2 on bad usage;
//! `sidecar::startup` says how a failed start is reported).

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;
use sidecar::config::{Cli, Command, DatabaseArgs, ImportArgs, ImportKind};
use sidecar::store::{Location, SampleSize, Store};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return sidecar::startup::refused(e),
    };
    match cli.command {
        Command::Serve(args) => sidecar::startup::serve(*args),
        Command::Healthcheck(args) => sidecar::healthcheck::run(&args),
        Command::Enquiries(args) => sidecar::contact::admin::main(&args),
        Command::Import(args) => match import(&args) {
            Ok(done) => {
                println!("{done} from {}", args.file.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("sidecar import: {}: {e:#}", args.file.display());
                ExitCode::FAILURE
            }
        },
        Command::Migrate(args) => match block_on(sidecar::store::upgrade::run(
            args.database.as_deref(),
            &args.data_dir,
            args.check,
        )) {
            Ok(report) => {
                print!("{}", report.text);
                // 3: pending migrations (documented in docs/operating.md).
                if report.pending {
                    ExitCode::from(3)
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("sidecar migrate: {e:#}");
                ExitCode::FAILURE
            }
        },
        Command::Backup(args) => copy("backup", &args.db, |db| {
            sidecar::store::sqlite::backup::backup(&db, &args.to)
                .map(|c| format!("backed up {} to {}: {c}", db.display(), args.to.display()))
        }),
        Command::Export(args) => match sidecar::export::run(&args) {
            Ok(r) => {
                println!(
                    "exported {} observations at {} sites to {}",
                    r.observations,
                    r.sites,
                    r.dir.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("sidecar export: {e:#}");
                ExitCode::FAILURE
            }
        },
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
    let outcome = match Location::of(db.database.as_deref(), &db.data_dir) {
        Ok(Location::Postgres(_)) => Err(anyhow::anyhow!(
            "PostgreSQL databases are backed up with pg_dump and restored with pg_restore \
             (docs/operating.md, \"Backups and restore\")"
        )),
        Ok(Location::Sqlite(path)) => sidecar::store::sqlite::backup::timed(|| run(path)),
        Err(e) => Err(e),
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

fn block_on<T>(f: impl std::future::Future<Output = anyhow::Result<T>>) -> anyhow::Result<T> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(f)
}

/// Opens the configured database (migrating it, adding no sample data) and
/// imports the file in one transaction; says what changed.
fn import(args: &ImportArgs) -> anyhow::Result<String> {
    block_on(async {
        let store = Store::open(args.database.as_deref(), &args.data_dir, SampleSize::None).await?;
        Ok(match args.kind {
            ImportKind::Observations => {
                let a = sidecar::store::import::run(&store, &args.file).await?;
                format!(
                    "imported {} new observations ({} withdrawn, {} replaced, {} unchanged) \
                     at {} sites",
                    a.added, a.withdrawn, a.replaced, a.unchanged, a.sites
                )
            }
            ImportKind::Classifications => {
                let r = sidecar::store::import::classifications::run(&store, &args.file).await?;
                format!(
                    "imported {} new classifications ({} already there)",
                    r.added,
                    r.rows - r.added
                )
            }
        })
    })
}
