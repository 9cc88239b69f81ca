//! The one reader of a scene's overlay spec file (`{voice_file}_spec.json`): the render plan,
//! the editor and the overlay edits all read specs through [`read_spec`].

use std::io::Read;
use std::path::Path;

use compositor::spec::OverlaySpec;

/// Largest overlay spec file read, bytes.
pub(crate) const MAX_SPEC_BYTES: u64 = 4 * 1024 * 1024;

/// Why a spec file could not be read. Internal: logged, never sent to a client.
#[derive(Debug, thiserror::Error)]
pub enum SpecReadError {
    #[error("the spec file could not be read: {0}")]
    Io(#[from] std::io::Error),
    #[error("the spec file is over {MAX_SPEC_BYTES} bytes")]
    TooLarge,
    #[error("the spec file is not an overlay spec: {0}")]
    Parse(#[from] serde_json::Error),
}

/// The spec at `path`, parsed (not validated: rendering validates what it draws); `None` when
/// there is no file.
pub fn read_spec(path: &Path) -> Result<Option<OverlaySpec>, SpecReadError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut bytes = Vec::new();
    file.take(MAX_SPEC_BYTES + 1).read_to_end(&mut bytes)?;
    parse_spec(&bytes).map(Some)
}

/// A spec file's bytes, parsed (not validated): what [`read_spec`] does once the file is read.
pub fn parse_spec(bytes: &[u8]) -> Result<OverlaySpec, SpecReadError> {
    if bytes.len() as u64 > MAX_SPEC_BYTES {
        return Err(SpecReadError::TooLarge);
    }
    Ok(serde_json::from_slice(bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use compositor::spec::SpecSource;

    #[test]
    fn missing_is_none_and_bad_or_huge_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v_spec.json");
        assert!(read_spec(&path).unwrap().is_none());
        let spec = OverlaySpec::new(SpecSource::Generated);
        std::fs::write(&path, serde_json::to_vec(&spec).unwrap()).unwrap();
        assert_eq!(read_spec(&path).unwrap(), Some(spec));
        std::fs::write(&path, b"{not json").unwrap();
        assert!(matches!(read_spec(&path), Err(SpecReadError::Parse(_))));
        std::fs::write(&path, vec![b' '; MAX_SPEC_BYTES as usize + 1]).unwrap();
        assert!(matches!(read_spec(&path), Err(SpecReadError::TooLarge)));
    }
}
