//! The presign token parser (`ingest::assets::Presigner::verify`): the path's folder and name
//! and the raw query string of a presigned PUT, as a client may send them back. Input:
//! `folder \n name \n query`. Also a round trip: a URL we sign for those parts verifies as the
//! same token (or is refused), never as another one.

use std::sync::LazyLock;

use video::ingest::{PresignToken, Presigner};

/// A fixed "now" so runs are repeatable.
const NOW: i64 = 1_800_000_000;

static PRESIGNER: LazyLock<(tempfile::TempDir, Presigner)> = LazyLock::new(|| {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let p = Presigner::open(dir.path()).expect("a presign key");
    (dir, p)
});

fn main() {
    LazyLock::force(&PRESIGNER);
    afl::fuzz!(|data: &[u8]| {
        let Some(text) = reelsmith_fuzz::text(data) else {
            return;
        };
        let presigner = &PRESIGNER.1;
        let mut parts = text.splitn(3, '\n');
        let (folder, name) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let query = parts.next().unwrap_or("");
        let _ = presigner.verify(folder, name, query, NOW);

        // The round trip, with numbers taken from the query's bytes.
        let n = |i: usize| {
            let b = query.as_bytes();
            let at = i * 4;
            let mut v = [0u8; 4];
            for (k, slot) in v.iter_mut().enumerate() {
                *slot = b.get(at + k).copied().unwrap_or(0);
            }
            i64::from(u32::from_le_bytes(v))
        };
        let token = PresignToken {
            folder: folder.to_string(),
            name: name.to_string(),
            iat: NOW - n(0),
            exp: NOW + n(1) - 1000,
            max_bytes: n(2) as u64,
        };
        if let Ok(back) = presigner.verify(folder, name, &presigner.query(&token), NOW) {
            assert_eq!(back, token, "a signed URL verified as another token");
        }
    });
}
