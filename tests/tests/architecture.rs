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
    for krate in ["compositor", "typography", "x264"] {
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
    let order = [
        "x264",
        "typography",
        "compositor",
        "foundation",
        "video",
        "pipeline",
        "api",
        "reelsmith",
    ];
    for (i, krate) in order.iter().enumerate() {
        let all = g.closure(krate);
        for upper in &order[i + 1..] {
            assert!(!all.contains(*upper), "{krate} must not depend on {upper}");
        }
    }
    // Only `api` knows HTTP serving; only `foundation`, whose store owns the database, knows redb.
    for krate in [
        "typography",
        "compositor",
        "foundation",
        "video",
        "pipeline",
        "reelsmith",
    ] {
        assert!(
            !g.direct(krate).contains("warp"),
            "{krate} uses warp directly"
        );
    }
    for krate in [
        "typography",
        "compositor",
        "video",
        "pipeline",
        "api",
        "reelsmith",
    ] {
        assert!(
            !g.direct(krate).contains("redb"),
            "{krate} uses redb directly"
        );
    }
}

// ---- Module structure inside the crates -------------------------------------------------------

/// The domain crates' folders, top to bottom (DESIGN.md §3b, ARCHITECTURE.md): a folder may use
/// the folders after it, never those before it; the crates themselves are kept apart by the
/// compiler (`dependencies_point_one_way`). `foundation` is one context of flat modules.
const DOMAIN_FOLDERS: &[(&str, &[&str])] = &[
    (
        "pipeline",
        &[
            "edit", "plan", "publish", "content", "notify", "design", "media",
        ],
    ),
    ("video", &["ingest", "build", "render"]),
];

/// Files directly in a domain crate's `src`: the crate root, and in `pipeline` the composition
/// root that wires the crates together. Everything else lives in a folder.
const DOMAIN_ROOT_FILES: &[&str] = &["lib.rs", "assemble.rs"];

fn workspace() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module paths a source file names, as segments after `crate::` (comments skipped;
/// `super::x` in a file `a/b.rs` is read as `crate::a::x`).
fn referenced_paths(file: &std::path::Path, src: &std::path::Path) -> Vec<Vec<String>> {
    let rel: Vec<String> = file
        .strip_prefix(src)
        .unwrap()
        .with_extension("")
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    // The module a `super::` in this file refers to (only for plain files `a/b.rs`).
    let parent: Option<Vec<String>> = (rel.last().is_some_and(|l| l != "mod") && rel.len() >= 2)
        .then(|| rel[..rel.len() - 1].to_vec());
    let text = std::fs::read_to_string(file).unwrap();
    let mut paths = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (prefix, base) in [("crate::", Some(Vec::new())), ("super::", parent.clone())] {
            let Some(base) = base else { continue };
            for (i, _) in line.match_indices(prefix) {
                let before = line[..i].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let mut segs = base.clone();
                let rest = &line[i + prefix.len()..];
                segs.extend(
                    rest.split("::")
                        .map(|s| {
                            s.chars()
                                .take_while(|c| c.is_alphanumeric() || *c == '_')
                                .collect::<String>()
                        })
                        .take_while(|s| {
                            !s.is_empty()
                                && s.chars()
                                    .all(|c| c.is_lowercase() || c == '_' || c.is_ascii_digit())
                        })
                        .take(2),
                );
                // `crate::{a, b}` groups name several modules at once.
                if let Some(group) = rest.strip_prefix('{') {
                    for item in group.split('}').next().unwrap_or("").split(',') {
                        let m = item.trim().split("::").next().unwrap_or("").to_string();
                        if !m.is_empty() {
                            let mut g = base.clone();
                            g.push(m);
                            paths.push(g);
                        }
                    }
                }
                if segs.len() > base.len() {
                    paths.push(segs);
                }
            }
        }
    }
    paths
}

/// Edges between sibling modules: for every file under `src/{scope…}/{node}`, each reference
/// to `crate::{scope…}::{other}` with `other` ≠ `node` is an edge node → other.
fn sibling_edges(src: &std::path::Path, scope: &[&str]) -> BTreeSet<(String, String)> {
    let mut dir = src.to_path_buf();
    dir.extend(scope);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut edges = BTreeSet::new();
    for file in files {
        let rel: Vec<String> = file
            .strip_prefix(&dir)
            .unwrap()
            .with_extension("")
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let node = rel[0].clone();
        if node == "mod" || node == "lib" {
            continue;
        }
        for path in referenced_paths(&file, src) {
            if path.len() > scope.len()
                && path[..scope.len()].iter().zip(scope).all(|(a, b)| a == b)
                && path[scope.len()] != node
            {
                edges.insert((node.clone(), path[scope.len()].clone()));
            }
        }
    }
    edges
}

/// A cycle among `edges`, if any, as the modules along it.
fn find_cycle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        edges: &BTreeSet<(String, String)>,
        state: &mut HashMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for (_, to) in edges.iter().filter(|(from, _)| from == n) {
            match state.get(to.as_str()) {
                Some(1) => {
                    let start = stack.iter().position(|s| s == to).unwrap();
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(to.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(to, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = HashMap::new();
    let nodes: BTreeSet<&String> = edges.iter().map(|(a, _)| a).collect();
    for n in nodes {
        if !state.contains_key(n.as_str())
            && let Some(c) = visit(n, edges, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn domain_crates_are_folders_by_context() {
    for (krate, folders) in DOMAIN_FOLDERS {
        let src = workspace().join(krate).join("src");
        for entry in std::fs::read_dir(&src).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                assert!(
                    folders.contains(&name.as_str()),
                    "{krate}/src/{name}/ is not a known context folder: add it to DESIGN.md \
                     §3b, ARCHITECTURE.md and DOMAIN_FOLDERS"
                );
            } else {
                assert!(
                    DOMAIN_ROOT_FILES.contains(&name.as_str()),
                    "{krate}/src/{name} is a flat module: put it in the folder of its context"
                );
            }
        }
    }
}

/// The folders whose `mod.rs` is a facade: every module inside is `pub(crate)` and the folder
/// re-exports what the crates above may name, so the compiler refuses a deep path such as
/// `pipeline::notify::report::list`. Each folder joins this list as it gets its facade.
const FACADE_FOLDERS: &[(&str, &str)] = &[
    ("pipeline", "notify"),
    ("pipeline", "media"),
    ("pipeline", "content"),
    ("pipeline", "design"),
    ("pipeline", "edit"),
    ("pipeline", "plan"),
    ("pipeline", "publish"),
    ("video", "ingest"),
    ("video", "build"),
    ("video", "render"),
];

#[test]
fn facade_folders_export_items_not_modules() {
    for (krate, folder) in FACADE_FOLDERS {
        let path = workspace()
            .join(krate)
            .join("src")
            .join(folder)
            .join("mod.rs");
        let source = std::fs::read_to_string(&path).unwrap();
        let open: Vec<&str> = source
            .lines()
            .filter(|l| l.trim_start().starts_with("pub mod "))
            .collect();
        assert!(
            open.is_empty(),
            "{krate}/src/{folder}/mod.rs is a facade: make {open:?} pub(crate) and re-export \
             the items other crates need"
        );
        assert!(
            source.contains("pub use "),
            "{krate}/src/{folder}/mod.rs re-exports nothing"
        );
    }
}

#[test]
fn domain_folders_point_down() {
    for (krate, folders) in DOMAIN_FOLDERS {
        let src = workspace().join(krate).join("src");
        let rank = |f: &str| folders.iter().position(|x| *x == f);
        let mut wrong = Vec::new();
        for (from, to) in sibling_edges(&src, &[]) {
            let (Some(a), Some(b)) = (rank(&from), rank(&to)) else {
                continue;
            };
            if b < a {
                wrong.push(format!("{from} → {to}"));
            }
        }
        assert!(
            wrong.is_empty(),
            "{krate}'s folders may only use the folders below them: {wrong:?}"
        );
    }
}

#[test]
fn no_module_cycles_in_the_domain_crates() {
    for (krate, folders) in DOMAIN_FOLDERS {
        let src = workspace().join(krate).join("src");
        for folder in *folders {
            let edges = sibling_edges(&src, &[folder]);
            assert_eq!(
                find_cycle(&edges),
                None,
                "module cycle in {krate}/src/{folder}"
            );
        }
    }
    let foundation = workspace().join("foundation/src");
    let edges = sibling_edges(&foundation, &[]);
    assert!(
        edges.iter().any(|(from, _)| from == "jobs"),
        "the scan found foundation's modules"
    );
    assert_eq!(find_cycle(&edges), None, "module cycle in foundation/src");
}

#[test]
fn no_module_cycles_in_compositor() {
    let compositor = workspace().join("compositor/src");
    let edges = sibling_edges(&compositor, &[]);
    assert!(
        edges.iter().any(|(from, _)| from == "resolve"),
        "the scan found compositor's modules"
    );
    assert_eq!(find_cycle(&edges), None, "module cycle in compositor/src");
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let e = |v: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(find_cycle(&e(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        find_cycle(&e(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

/// Each crate's `tests/` folder is one test binary (`autotests = false`, a `main.rs` that
/// declares every file as a module), so a test file that `main.rs` forgets would never run.
#[test]
fn every_test_file_is_a_module_of_its_binary() {
    let root = workspace();
    for dir in [
        "tests/tests",
        "compositor/tests",
        "pipeline/tests",
        "typography/tests",
    ] {
        let dir = root.join(dir);
        let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs of a tests folder");
        let declared: BTreeSet<String> = main
            .lines()
            .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
            .map(str::to_string)
            .collect();
        let files: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter_map(|name| Some(name.strip_suffix(".rs")?.to_string()))
            .filter(|name| name != "main")
            .collect();
        assert_eq!(
            declared,
            files,
            "{}: main.rs must declare every file",
            dir.display()
        );
    }
}

/// Every file or folder `dir` holds, as `/`-separated paths below it (`target`, installed
/// packages and hidden folders left out).
fn repository_paths(dir: &std::path::Path, below: &str, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || ["target", "node_modules"].contains(&name.as_str()) {
            continue;
        }
        let path = format!("{below}{name}");
        if entry.path().is_dir() {
            out.insert(format!("{path}/"));
            repository_paths(&entry.path(), &format!("{path}/"), out);
        } else {
            out.insert(path);
        }
    }
}

/// `ARCHITECTURE.md` stays a map: at most 150 lines, none over 300 characters, and every file or
/// folder it names in backticks (`render/farm/`, `foundation/src/jobs.rs`; a route such as
/// `/v1/openapi.json` is not a path) exists somewhere in the repository.
#[test]
fn the_architecture_map_is_short_and_names_what_exists() {
    let root = workspace();
    let map = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    assert!(
        map.lines().count() <= 150,
        "ARCHITECTURE.md has over 150 lines"
    );
    for (n, line) in map.lines().enumerate() {
        assert!(
            line.chars().count() <= 300,
            "ARCHITECTURE.md:{} is over 300 characters",
            n + 1
        );
    }
    let mut paths = BTreeSet::new();
    repository_paths(&root, "", &mut paths);
    let named = map.split('`').skip(1).step_by(2).filter(|t| {
        let file = [".rs", ".md", ".json", ".ts", ".toml"]
            .iter()
            .any(|e| t.ends_with(e));
        let folder = t.ends_with('/') && !t.contains("://");
        (file || folder) && !t.starts_with('/') && !t.contains(['*', '…', '{', ' ', ':'])
    });
    let missing: Vec<&str> = named
        .filter(|t| {
            !paths
                .iter()
                .any(|p| p == t || p.ends_with(&format!("/{t}")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

/// The names of the types in `source` whose OpenAPI schema is derived: a `#[derive(…ToSchema…)]`
/// struct or enum, or an enum made by `wire_enum!` (which derives it). Types that other macros
/// declare from their arguments (`modify_scene`'s field items) are not seen.
fn schema_types(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut pending = false;
    for line in source.lines().map(str::trim) {
        if (line.starts_with("#[derive(") && line.contains("ToSchema"))
            || line.contains("wire_enum! {")
        {
            pending = true;
        } else if pending {
            let item = line
                .strip_prefix("pub enum ")
                .or_else(|| line.strip_prefix("pub struct "))
                .or_else(|| line.strip_prefix("pub(crate) struct "))
                .or_else(|| line.strip_prefix("pub(crate) enum "));
            if let Some(item) = item {
                let name: String = item
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                // A macro's own template (`pub enum $name`) names no type.
                if !name.is_empty() {
                    names.push(name);
                }
                pending = false;
            }
        }
    }
    names
}

/// utoipa names a schema component after its type and keeps one schema per name: two types of
/// one name would silently serve one's schema for the other's values.
#[test]
fn no_two_schema_types_share_a_component_name() {
    let mut seen: HashMap<String, std::path::PathBuf> = HashMap::new();
    let mut clashes = Vec::new();
    for krate in [
        "foundation",
        "video",
        "pipeline",
        "api",
        "compositor",
        "typography",
    ] {
        let mut files = Vec::new();
        rust_files(&workspace().join(krate).join("src"), &mut files);
        for file in files {
            let source = std::fs::read_to_string(&file).unwrap();
            for name in schema_types(&source) {
                if let Some(first) = seen.insert(name.clone(), file.clone()) {
                    clashes.push(format!(
                        "{name}: {} and {}",
                        first.display(),
                        file.display()
                    ));
                }
            }
        }
    }
    assert!(seen.contains_key("SceneFields") && seen.contains_key("Roll"));
    assert!(clashes.is_empty(), "{clashes:?}");
}
