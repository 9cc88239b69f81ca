//! `reelsmith`: the daemon and its tools. Thin by design: parsing flags and
//! config, then handing over to the library crates.

mod config;
mod oneshot;
mod svg2spec_cli;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use foundation::model::{Language, Plan, Source};

#[derive(Parser)]
#[command(
    name = "reelsmith",
    version,
    about = "Self-hosted video production engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the /v1 API daemon.
    Serve {
        /// TOML config file (optional; defaults apply without one).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Overrides `listen`.
        #[arg(long)]
        listen: Option<String>,
        /// Overrides `data_dir`.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Internal: hosts a neural voice for the process that started it (requests on stdin,
    /// audio on stdout), so ONNX Runtime never loads into a process that renders.
    #[command(name = video::build::WORKER_COMMAND, hide = true)]
    VoiceWorker {
        #[arg(long)]
        runtime: PathBuf,
        #[arg(long)]
        model: PathBuf,
    },
    /// Run a render worker: scene chunks from NATS JetStream, inputs and chunks through the
    /// blob store (`[queue]` and `[storage]` of the config, `queue.kind = "nats"`).
    Worker {
        /// TOML config file (optional; defaults and `REELSMITH__*` apply without one).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Overrides `data_dir` (the worker keeps fetched inputs under `{data_dir}/worker`).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Turn a script file into an MP4 in-process, without the server.
    Render {
        /// The script (or idea / blog text with --source).
        script: PathBuf,
        /// Where to write the MP4. Without it, `--contact-sheet PATH` alone builds the scenes
        /// and writes their sheet, and nothing is encoded.
        #[arg(short, long, required_unless_present = "contact_sheet")]
        out: Option<PathBuf>,
        /// What the file holds.
        #[arg(long, value_enum, default_value_t = SourceArg::Text)]
        source: SourceArg,
        /// Every scene B-roll, no narrator.
        #[arg(long)]
        faceless: bool,
        /// Narration language (English or Vietnamese, `en` or `vi`); picks the voice.
        #[arg(long, value_parser = parse_language)]
        language: Option<Language>,
        /// TOML config file (optional).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Keep the job's files in this data dir (default: a temporary folder, removed after).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Also write a contact sheet: one PNG with a frame of every scene, at PATH (default:
        /// the MP4's path with `.png`; without `-o`, PATH is needed).
        #[arg(long, value_name = "PATH", num_args = 0..=1)]
        contact_sheet: Option<Option<PathBuf>>,
    },
    /// Re-render exported videos in a data dir, reusing their stored scenes (the daemon must
    /// not be running on it).
    Rerender {
        /// Every video that has an MP4.
        #[arg(long)]
        all: bool,
        /// One video; repeat for several.
        #[arg(long = "topic")]
        topics: Vec<String>,
        /// Videos rendered at once (each holds a render's memory, about 280 MB); two fill
        /// two cores.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Convert overlay SVGs (every .svg/.svgz in each folder, or single files) into overlay
    /// specs, in parallel: `{out}/{file stem}/spec.json` plus payload PNGs per file.
    Svg2spec {
        /// Folders (or files) to convert.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output folder.
        #[arg(short, long, default_value = "svg2spec-out")]
        out: PathBuf,
        /// TOML config file (optional; its `assets_dir` supplies the pinned fonts).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Manage API keys.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Problem reports received by `POST /v1/error/report`.
    Reports {
        #[command(subcommand)]
        command: ReportsCommand,
    },
    /// Manage accounts (the daemon must not be running on the data dir).
    Accounts {
        #[command(subcommand)]
        command: AccountsCommand,
    },
}

#[derive(Subcommand)]
enum AccountsCommand {
    /// Change an account's settings.
    Set {
        #[arg(long)]
        data_dir: PathBuf,
        #[arg(long)]
        account: String,
        /// Videos per week the roadmap plans for (1 to 50; default 3 until set).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=pipeline::plan::MAX_WEEKLY_QUOTA as i64))]
        weekly_quota: Option<u32>,
        /// The account's industry (the default of its plan entries); empty clears it.
        #[arg(long)]
        industry: Option<String>,
        /// The account's sub-industry; empty clears it.
        #[arg(long)]
        sub_industry: Option<String>,
        /// Where the account's mail goes; empty clears it.
        #[arg(long)]
        email: Option<String>,
        /// The account holder's name; empty clears it.
        #[arg(long)]
        name: Option<String>,
        /// Where the account is based; empty clears it.
        #[arg(long)]
        location: Option<String>,
        #[arg(long, value_enum)]
        plan: Option<PlanArg>,
        /// Credits left (replaces the balance).
        #[arg(long, value_parser = clap::value_parser!(i64).range(0..))]
        credits: Option<i64>,
        /// Expiry, `2027-01-31` or RFC 3339; `never` removes it. Charged work after it answers
        /// 402 `account_expired`.
        #[arg(long, value_parser = parse_valid_to)]
        valid_to: Option<ValidTo>,
        /// The Telegram chat notifications also go to; empty disconnects Telegram.
        #[arg(long)]
        telegram_chat_id: Option<String>,
    },
}

#[derive(Subcommand)]
enum ReportsCommand {
    /// Prints every stored report, oldest first (the daemon must not be running on the data dir).
    List {
        #[arg(long)]
        data_dir: PathBuf,
    },
}

/// An account's plan on the command line (`foundation::model::Plan`).
#[derive(Clone, Copy, clap::ValueEnum)]
enum PlanArg {
    Free,
    Trial,
    Paid,
}

impl From<PlanArg> for Plan {
    fn from(p: PlanArg) -> Plan {
        match p {
            PlanArg::Free => Plan::Free,
            PlanArg::Trial => Plan::Trial,
            PlanArg::Paid => Plan::Paid,
        }
    }
}

/// What `reelsmith render`'s file holds (`foundation::model::Source`'s text sources).
#[derive(Clone, Copy, clap::ValueEnum)]
enum SourceArg {
    Text,
    Idea,
    Blog,
}

impl From<SourceArg> for Source {
    fn from(s: SourceArg) -> Source {
        match s {
            SourceArg::Text => Source::Text,
            SourceArg::Idea => Source::Idea,
            SourceArg::Blog => Source::Blog,
        }
    }
}

/// `--language`: any name a request's `language` takes.
fn parse_language(s: &str) -> Result<Language, String> {
    <Language as foundation::fields::Choice>::parse(s)
        .ok_or_else(|| "English or Vietnamese (en or vi)".to_string())
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Create an API key (and the account when new); prints the key once.
    Create {
        #[arg(long)]
        data_dir: PathBuf,
        #[arg(long)]
        account: String,
        #[arg(long, value_enum, default_value_t = PlanArg::Paid)]
        plan: PlanArg,
        #[arg(long, default_value_t = foundation::accounts::DEFAULT_CREDITS)]
        credits: i64,
    },
}

fn main() -> std::process::ExitCode {
    video::render::tune_malloc();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("REELSMITH_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve {
            config,
            listen,
            data_dir,
        } => serve(config, listen, data_dir),
        Command::Worker { config, data_dir } => worker(config, data_dir),
        Command::VoiceWorker { runtime, model } => {
            video::build::serve_worker(&runtime, &model).map_err(|e| e.to_string())
        }
        Command::Render {
            script,
            out,
            source,
            faceless,
            language,
            config,
            data_dir,
            contact_sheet,
        } => config::load(config.as_deref(), None, None).and_then(|cfg| {
            let contact_sheet = match (contact_sheet, &out) {
                (Some(Some(path)), _) => Some(path),
                (Some(None), Some(out)) => Some(out.with_extension("png")),
                (Some(None), None) => {
                    return Err("--contact-sheet needs a PATH when there is no -o".into());
                }
                (None, _) => None,
            };
            oneshot::render(
                cfg,
                oneshot::RenderArgs {
                    script,
                    out,
                    source: source.into(),
                    faceless,
                    language,
                    data_dir,
                    contact_sheet,
                },
            )
        }),
        Command::Rerender {
            all,
            topics,
            jobs,
            config,
            data_dir,
        } => config::load(config.as_deref(), None, data_dir)
            .and_then(|cfg| oneshot::rerender(cfg, all, topics, jobs)),
        Command::Svg2spec {
            inputs,
            out,
            config,
        } => config::load(config.as_deref(), None, None)
            .and_then(|cfg| svg2spec_cli::run(&inputs, &out, &cfg.assets_dir)),
        Command::Keys {
            command:
                KeysCommand::Create {
                    data_dir,
                    account,
                    plan,
                    credits,
                },
        } => keys_create(&data_dir, &account, plan.into(), credits),
        Command::Reports {
            command: ReportsCommand::List { data_dir },
        } => reports_list(&data_dir),
        Command::Accounts {
            command:
                AccountsCommand::Set {
                    data_dir,
                    account,
                    weekly_quota,
                    industry,
                    sub_industry,
                    email,
                    name,
                    location,
                    plan,
                    credits,
                    valid_to,
                    telegram_chat_id,
                },
        } => accounts_set(
            &data_dir,
            &account,
            foundation::accounts::SettingsUpdate {
                industry,
                sub_industry,
                email,
                contact_name: name,
                location,
                weekly_quota,
                telegram_chat_id,
                plan: plan.map(Plan::from),
                credits,
                valid_to: valid_to.map(|v| v.0),
            },
        ),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("reelsmith: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn serve(
    file: Option<PathBuf>,
    listen: Option<String>,
    data_dir: Option<PathBuf>,
) -> Result<(), String> {
    let cfg = config::load(file.as_deref(), listen, data_dir)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(cfg.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", cfg.listen))?;
        let shutdown =
            shutdown_signal().map_err(|e| format!("cannot install signal handlers: {e}"))?;
        api::run(listener, cfg, shutdown)
            .await
            .map_err(|e| e.to_string())
    })?;
    // Blocking job threads may still be finishing a frame; the work they
    // were doing is already back in the queue, so do not wait for them.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(())
}

/// `reelsmith worker`: takes chunk tasks until SIGTERM (finishing the chunk in hand).
fn worker(file: Option<PathBuf>, data_dir: Option<PathBuf>) -> Result<(), String> {
    let cfg = config::load(file.as_deref(), None, data_dir)?;
    let settings = cfg.finish(([127, 0, 0, 1], 0).into())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let shutdown =
            shutdown_signal().map_err(|e| format!("cannot install signal handlers: {e}"))?;
        let mut shutdown = Box::pin(shutdown);
        match video::render::FarmWorker::connect(&settings, &mut shutdown).await? {
            Some(worker) => worker.run(shutdown).await,
            None => Ok(()),
        }
    })
}

/// Installs the SIGTERM and Ctrl-C handlers now (before the daemon announces
/// its address, so no early signal hits the default handler) and returns a
/// future that resolves on either.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    #[cfg(unix)]
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    })
}

/// `--valid-to`: a date, a timestamp, or `never`.
#[derive(Debug, Clone, Copy)]
struct ValidTo(Option<i64>);

fn parse_valid_to(s: &str) -> Result<ValidTo, String> {
    if s == "never" {
        return Ok(ValidTo(None));
    }
    foundation::time::parse_iso(s)
        .map(|t| ValidTo(Some(t)))
        .ok_or_else(|| "expected a date like 2027-01-31, an RFC 3339 time, or `never`".into())
}

fn open_store(data_dir: &std::path::Path) -> Result<foundation::store::Store, String> {
    foundation::store::Store::open(&data_dir.join("reelsmith.redb"))
        .map_err(|e| format!("cannot open the database (is the daemon running?): {e}"))
}

fn accounts_set(
    data_dir: &std::path::Path,
    account: &str,
    update: foundation::accounts::SettingsUpdate,
) -> Result<(), String> {
    if !data_dir.join("reelsmith.redb").exists() {
        return Err(format!("{}: no database here", data_dir.display()));
    }
    let store = open_store(data_dir)?;
    match foundation::accounts::update_settings(&store, account, update) {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!("no account named `{account}`")),
        Err(e) => Err(e.to_string()),
    }
}

fn reports_list(data_dir: &std::path::Path) -> Result<(), String> {
    if !data_dir.join("reelsmith.redb").exists() {
        return Err(format!("{}: no database here", data_dir.display()));
    }
    let store = open_store(data_dir)?;
    let reports = pipeline::notify::list_reports(&store).map_err(|e| e.to_string())?;
    for r in &reports {
        let when = foundation::time::iso(r.created_at);
        let forwarded = if r.forwarded { "forwarded" } else { "stored" };
        println!("{when}  {}  {}  ({forwarded})", r.account, r.module);
        println!("  {}", r.error_message.replace('\n', "\n  "));
        for line in r.context_lines() {
            println!("  · {line}");
        }
    }
    if reports.is_empty() {
        println!("no reports");
    }
    Ok(())
}

fn keys_create(
    data_dir: &std::path::Path,
    account: &str,
    plan: Plan,
    credits: i64,
) -> Result<(), String> {
    std::fs::create_dir_all(data_dir).map_err(|e| format!("{}: {e}", data_dir.display()))?;
    let store = open_store(data_dir)?;
    let key = foundation::accounts::create_key(&store, account, plan, credits)
        .map_err(|e| e.to_string())?;
    println!("{key}");
    Ok(())
}
