//! Config layering: defaults → TOML file → `REELSMITH__SECTION__KEY`
//! environment → flags. Everything is merged as TOML values, then
//! deserialised once into the typed [`Config`] (unknown keys are errors).

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
    let mut config = Config::deserialize(table).map_err(|e| format!("config: {e}"))?;
    // This executable hosts the neural voice in a child (`voice-worker`), so the runtime never
    // loads into the process that renders.
    config.voice.worker_program = std::env::current_exe().ok();
    Ok(config)
}

use serde::Deserialize;

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
    fn unknown_keys_are_errors() {
        let t: Table = "nope = 1".parse().unwrap();
        assert!(Config::deserialize(t).is_err());
    }

    #[test]
    fn the_example_config_is_valid() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reelsmith.example.toml");
        let t: Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
        let cfg = Config::deserialize(t).expect("every key of the example is known");
        cfg.finish("127.0.0.1:8080".parse().unwrap())
            .expect("the example validates");
    }
}
