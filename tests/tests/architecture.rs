//! Architecture invariants as tests (DESIGN.md §1): dependencies point one
//! way, and the render core never pulls in async, HTTP or storage crates.

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

struct Graph {
    /// package name → names of its normal (non-dev, non-build) dependencies
    deps: HashMap<String, BTreeSet<String>>,
}

fn graph() -> Graph {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: HashMap<String, String> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut deps = HashMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let name = names[node["id"].as_str().unwrap()].clone();
        let set: BTreeSet<String> = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null())
            })
            .map(|d| names[d["pkg"].as_str().unwrap()].clone())
            .collect();
        deps.entry(name).or_insert_with(BTreeSet::new).extend(set);
    }
    Graph { deps }
}

impl Graph {
    fn closure(&self, root: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![root.to_string()];
        while let Some(p) = stack.pop() {
            for d in self.deps.get(&p).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    stack.push(d.clone());
                }
            }
        }
        seen
    }

    fn direct(&self, p: &str) -> &BTreeSet<String> {
        &self.deps[p]
    }
}

#[test]
fn render_core_has_no_async_http_or_storage() {
    let g = graph();
    for krate in ["compositor", "typography"] {
        let all = g.closure(krate);
        for banned in ["tokio", "warp", "hyper", "reqwest", "redb"] {
            assert!(
                !all.contains(banned),
                "{krate} depends (transitively) on {banned}"
            );
        }
    }
}

#[test]
fn dependencies_point_one_way() {
    let g = graph();
    let order = ["typography", "compositor", "pipeline", "api", "reelsmith"];
    for (i, krate) in order.iter().enumerate() {
        let all = g.closure(krate);
        for upper in &order[i + 1..] {
            assert!(!all.contains(*upper), "{krate} must not depend on {upper}");
        }
    }
    // Only `api` knows HTTP serving; only `pipeline` (and the daemon through
    // it) knows redb.
    for krate in ["typography", "compositor", "pipeline", "reelsmith"] {
        assert!(
            !g.direct(krate).contains("warp"),
            "{krate} uses warp directly"
        );
    }
    for krate in ["typography", "compositor", "api"] {
        assert!(
            !g.direct(krate).contains("redb"),
            "{krate} uses redb directly"
        );
    }
}
