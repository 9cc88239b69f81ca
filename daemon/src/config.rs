//! Config layering: defaults → TOML file → `REELSMITH__SECTION__KEY`
//! environment → flags. Everything is merged as TOML values, then
//! deserialised once into the typed [`Config`], whose crate-owned sections are claimed here
//! (unknown keys are errors).

use std::path::{Path, PathBuf};

use foundation::config::Config;
use toml::{Table, Value};

const ENV_PREFIX: &str = "REELSMITH__";

pub fn load(
    file: Option<&Path>,
    listen: Option<String>,
    data_dir: Option<PathBuf>,
) -> Result<Config, String> {
    let mut table = match file {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            text.parse::<Table>()
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => Table::new(),
    };
    apply_env(&mut table, std::env::vars())?;
    if let Some(l) = listen {
        table.insert("listen".into(), Value::String(l));
    }
    if let Some(d) = data_dir {
        table.insert("data_dir".into(), Value::String(d.display().to_string()));
    }
    let mut config = read(table)?;
    // This executable hosts the neural voice in a child (`voice-worker`), so the runtime never
    // loads into the process that renders.
    let voice = video::build::VoiceConfig {
        worker_program: std::env::current_exe().ok(),
        ..(*config.section::<video::build::VoiceConfig>()).clone()
    };
    config.sections.set(voice);
    Ok(config)
}

use serde::Deserialize;

/// The layered table as a [`Config`], every section claimed.
fn read(table: Table) -> Result<Config, String> {
    let config = Config::deserialize(table).map_err(|e| format!("config: {e}"))?;
    claim_sections(&config)?;
    Ok(config)
}

/// Every crate's own sections, read and checked once; a table or key that no crate claims is
/// refused, as an unknown key of a shared section is by its type.
fn claim_sections(config: &Config) -> Result<(), String> {
    video::claim_sections(config)?;
    pipeline::assemble::claim_sections(config)?;
    api::claim_sections(config)?;
    match config.sections.unclaimed().first() {
        Some(name) => Err(format!("config: unknown section or key `{name}`")),
        None => Ok(()),
    }
}

/// `REELSMITH__WEBHOOK__RETRY_SCHEDULE_SECS=[0,1,2]` sets
/// `webhook.retry_schedule_secs`. Values parse as TOML (numbers, booleans,
/// arrays) and fall back to plain strings.
fn apply_env(
    table: &mut Table,
    vars: impl Iterator<Item = (String, String)>,
) -> Result<(), String> {
    for (name, raw) in vars {
        let Some(path) = name.strip_prefix(ENV_PREFIX) else {
            continue;
        };
        let keys: Vec<String> = path.split("__").map(|k| k.to_ascii_lowercase()).collect();
        if keys.iter().any(|k| k.is_empty()) {
            return Err(format!("{name}: empty key segment"));
        }
        let value = format!("v = {raw}")
            .parse::<Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or(Value::String(raw));
        let (last, parents) = keys.split_last().expect("at least one key");
        let mut cur = &mut *table;
        for k in parents {
            cur = cur
                .entry(k.clone())
                .or_insert_with(|| Value::Table(Table::new()))
                .as_table_mut()
                .ok_or_else(|| format!("{name}: `{k}` is not a section"))?;
        }
        cur.insert(last.clone(), value);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_overrides_nest_and_parse() {
        let mut t: Table = "mode = \"dev\"\n[webhook]\nsigning_secret = \"a\"\n"
            .parse()
            .unwrap();
        apply_env(
            &mut t,
            [
                (
                    "REELSMITH__WEBHOOK__RETRY_SCHEDULE_SECS".to_string(),
                    "[0, 1, 2]".to_string(),
                ),
                ("REELSMITH__MODE".to_string(), "production".to_string()),
                ("REELSMITH__RENDER__WORKERS".to_string(), "2".to_string()),
                ("OTHER".to_string(), "x".to_string()),
            ]
            .into_iter(),
        )
        .unwrap();
        let c = Config::deserialize(t).unwrap();
        assert_eq!(c.webhook.retry_schedule_secs, vec![0, 1, 2]);
        assert_eq!(c.webhook.signing_secret, "a");
        assert_eq!(c.render.workers, 2);
        assert_eq!(c.mode, foundation::config::Mode::Production);
    }

    #[test]
    fn unknown_keys_and_sections_are_errors_in_every_crates_sections() {
        for (toml, named) in [
            ("nope = 1", "nope"),
            ("[nope]\nx = 1", "nope"),
            ("[webhook]\ntypo = 1", "typo"),
            ("[notify]\ntypo = 1", "[notify]"),
            ("[http]\ntypo = 1", "[http]"),
            ("[voice]\ntypo = 1", "[voice]"),
            ("[broll]\nprovider = \"pexels\"", "broll.base_url"),
            ("[http]\nheader_read_timeout_secs = 0", "http."),
            (
                "[publish]\nchannel_group_limit = 0",
                "publish.channel_group_limit",
            ),
            (
                "[notify]\noperator_email = \"ops@example.com\"",
                "[smtp] host",
            ),
        ] {
            let e = read(toml.parse().unwrap()).expect_err(toml);
            assert!(e.contains(named), "{toml}: {e}");
        }
    }

    #[test]
    fn a_crates_section_reads_into_its_own_type() {
        let c = read("[edit]\ncache_enabled = false".parse().unwrap()).unwrap();
        assert!(!c.section::<pipeline::edit::EditConfig>().cache_enabled);
    }

    #[test]
    fn render_lanes_are_one_to_eight() {
        let finish = |toml: &str| {
            read(toml.parse().unwrap())
                .unwrap()
                .finish("127.0.0.1:8080".parse().unwrap())
        };
        for bad in ["[render]\nlanes = 0", "[render]\nlanes = 9"] {
            let e = finish(bad).expect_err(bad);
            assert!(e.contains("render.lanes"), "{bad}: {e}");
        }
        let settings = finish("[render]\nlanes = 2").unwrap();
        assert_eq!(settings.render.lanes, 2);
        assert_eq!(finish("").unwrap().render.lanes, 1, "one lane by default");
    }

    #[test]
    fn the_example_config_is_valid() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reelsmith.example.toml");
        let t: Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
        let cfg = read(t).expect("every key of the example is known");
        cfg.finish("127.0.0.1:8080".parse().unwrap())
            .expect("the example validates");
    }
}
