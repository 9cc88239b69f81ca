//! Config sections owned by the crates that use them. `foundation` declares the sections every
//! crate shares (`[webhook]`, `[fetch]`, `[render]`, `[queue]`, `[public]`, …); a crate with a
//! section of its own (`pipeline`'s `[notify]`, `api`'s `[http]`) declares it beside its code as
//! a [`Section`], and reads it with [`Settings::section`](super::Settings::section).
//!
//! The config file's other top-level tables are kept, unread, in [`Sections`]. The composition
//! root claims every section once at start ([`Sections::claim`]): it is read, its rules are
//! checked, and a table nobody claims is refused ([`Sections::unclaimed`]), as an unknown key
//! always was.

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Mode;

/// A section of the config file that a crate owns: its `[NAME]` table, read into its own type
/// (unknown keys refused, missing keys defaulted).
pub trait Section: DeserializeOwned + Default + Send + Sync + 'static {
    /// The table's name in the config file.
    const NAME: &'static str;

    /// The rules its values keep, beyond their types (checked once, at start).
    fn check(&self, _mode: Mode) -> Result<(), String> {
        Ok(())
    }
}

/// The crate-owned tables as the config layers left them, and each one read once.
#[derive(Debug, Default)]
pub struct Sections {
    tables: BTreeMap<String, Value>,
    read: Mutex<Read>,
}

#[derive(Debug, Default)]
struct Read {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    claimed: BTreeSet<&'static str>,
}

impl Clone for Sections {
    /// An independent copy: a section set on the copy is not set on the original.
    fn clone(&self) -> Sections {
        let read = self.lock();
        Sections {
            tables: self.tables.clone(),
            read: Mutex::new(Read {
                values: read.values.clone(),
                claimed: read.claimed.clone(),
            }),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Sections {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Sections, D::Error> {
        Ok(Sections {
            tables: BTreeMap::deserialize(d)?,
            read: Mutex::default(),
        })
    }
}

impl Sections {
    fn lock(&self) -> std::sync::MutexGuard<'_, Read> {
        self.read.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads and checks section `T`, and marks its table as known. A wrong key or value is an
    /// error naming the section.
    pub fn claim<T: Section>(&self, mode: Mode) -> Result<(), String> {
        let value = self.parse::<T>()?;
        value.check(mode)?;
        let mut read = self.lock();
        read.claimed.insert(T::NAME);
        read.values.insert(TypeId::of::<T>(), Arc::new(value));
        Ok(())
    }

    /// Tables of the config file that no claimed section reads, by name.
    pub fn unclaimed(&self) -> Vec<String> {
        let read = self.lock();
        self.tables
            .keys()
            .filter(|k| !read.claimed.contains(k.as_str()))
            .cloned()
            .collect()
    }

    /// Section `T`: read from its table the first time (its defaults when the file has none).
    /// A table the start did not claim and that does not read is logged and defaulted.
    pub fn get<T: Section>(&self) -> Arc<T> {
        if let Some(v) = self.lock().values.get(&TypeId::of::<T>()) {
            return v
                .clone()
                .downcast::<T>()
                .expect("stored under its own TypeId");
        }
        let value = Arc::new(self.parse::<T>().unwrap_or_else(|e| {
            tracing::error!(error = %e, "config section not claimed at start; its defaults apply");
            T::default()
        }));
        self.lock().values.insert(TypeId::of::<T>(), value.clone());
        value
    }

    /// Replaces section `T` (tests and embedders that build settings in code).
    pub fn set<T: Section>(&mut self, value: T) {
        self.lock()
            .values
            .insert(TypeId::of::<T>(), Arc::new(value));
    }

    fn parse<T: Section>(&self) -> Result<T, String> {
        match self.tables.get(T::NAME) {
            None => Ok(T::default()),
            Some(v) => T::deserialize(v).map_err(|e| format!("config: [{}]: {e}", T::NAME)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    #[serde(default, deny_unknown_fields)]
    struct Limits {
        per_hour: u32,
    }

    impl Default for Limits {
        fn default() -> Self {
            Limits { per_hour: 20 }
        }
    }

    impl Section for Limits {
        const NAME: &'static str = "limits";

        fn check(&self, _mode: Mode) -> Result<(), String> {
            match self.per_hour {
                0 => Err("limits.per_hour must be at least 1".into()),
                _ => Ok(()),
            }
        }
    }

    fn sections(json: Value) -> Sections {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn a_claimed_section_is_read_checked_and_known() {
        let s = sections(serde_json::json!({ "limits": { "per_hour": 5 }, "other": {} }));
        s.claim::<Limits>(Mode::Dev).unwrap();
        assert_eq!(s.get::<Limits>().per_hour, 5);
        assert_eq!(s.unclaimed(), vec!["other".to_string()]);
    }

    #[test]
    fn a_wrong_key_or_a_broken_rule_is_refused_by_name() {
        let e = sections(serde_json::json!({ "limits": { "per_hour": 5, "typo": 1 } }))
            .claim::<Limits>(Mode::Dev)
            .unwrap_err();
        assert!(e.contains("[limits]") && e.contains("typo"), "{e}");
        let e = sections(serde_json::json!({ "limits": { "per_hour": 0 } }))
            .claim::<Limits>(Mode::Dev)
            .unwrap_err();
        assert!(e.contains("per_hour"), "{e}");
    }

    #[test]
    fn a_missing_table_reads_as_defaults_and_a_copy_is_independent() {
        let s = sections(serde_json::json!({}));
        assert_eq!(*s.get::<Limits>(), Limits::default());
        let mut copy = s.clone();
        copy.set(Limits { per_hour: 1 });
        assert_eq!(
            (copy.get::<Limits>().per_hour, s.get::<Limits>().per_hour),
            (1, 20)
        );
    }
}
