//! The folder batch behind `reelsmith svg2spec DIR…`: every SVG of some folders converted in
//! parallel (rayon over files), each written to `{out}/{file stem}/`.
//!
//! This is command-line plumbing, not render-core work; it belongs in the daemon. It stays here
//! only while `pipeline::overlay_edits::convert_folders` calls it: once that function is gone,
//! this file moves to `daemon/src/` unchanged.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{Options, Svg2specError, convert};

/// Every `.svg`/`.svgz` file directly inside each folder (or the file itself), sorted.
pub fn collect_inputs(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            for e in std::fs::read_dir(p)? {
                let path = e?.path();
                let ext = path
                    .extension()
                    .and_then(|e| e.to_str())
                    .map(str::to_ascii_lowercase);
                if path.is_file() && matches!(ext.as_deref(), Some("svg" | "svgz")) {
                    out.push(path);
                }
            }
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    Ok(out)
}

/// The outcome of converting one file of a batch.
#[derive(Debug)]
pub struct BatchItem {
    pub input: PathBuf,
    /// The folder written (`{out}/{stem}/spec.json` and payloads), or why it failed.
    pub result: Result<PathBuf, String>,
}

/// Converts `inputs` in parallel (rayon), writing each into `{out}/{file stem}/` as
/// `spec.json` plus its payload PNGs. Files larger than the input limit are refused unread.
pub fn convert_files(inputs: &[PathBuf], out: &Path, opt: &Options) -> Vec<BatchItem> {
    inputs
        .par_iter()
        .map(|input| {
            let result = (|| {
                let len = std::fs::metadata(input).map_err(|e| e.to_string())?.len();
                if len > opt.limits.max_bytes as u64 {
                    return Err(Svg2specError::TooLarge(opt.limits.max_bytes).to_string());
                }
                let bytes = std::fs::read(input).map_err(|e| e.to_string())?;
                let converted = convert(&bytes, opt).map_err(|e| e.to_string())?;
                let stem = input
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("svg")
                    .to_string();
                let dir = out.join(stem);
                std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
                for (name, bytes) in &converted.files {
                    std::fs::write(dir.join(name), bytes).map_err(|e| e.to_string())?;
                }
                let json = serde_json::to_vec_pretty(&converted.spec).map_err(|e| e.to_string())?;
                std::fs::write(dir.join("spec.json"), json).map_err(|e| e.to_string())?;
                Ok(dir)
            })();
            BatchItem {
                input: input.clone(),
                result,
            }
        })
        .collect()
}
