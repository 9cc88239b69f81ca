//! Rendering: a video document becomes a compositor render plan, an MP4, or stills
//! (screenshots and overlay posters). Uses `foundation` only.

pub(crate) mod chunks;
pub(crate) mod contact_sheet;
pub(crate) mod farm;
pub(crate) mod plan;
pub(crate) mod preview;
pub(crate) mod sound;
pub(crate) mod spec_file;
pub(crate) mod stills;
pub(crate) mod task;

// The facade: what the crates above may name.
pub use chunks::{ChunkDir, Offload, Render, Report, Soundtrack};
pub use contact_sheet::contact_sheet;
pub use farm::Farm;
pub use farm::config::{StorageConfig, StorageKind};
pub use farm::worker::Worker as FarmWorker;
pub use plan::{encode_settings, plan_for, procedural_still, render_document, soundtrack_key};
pub use preview::{PreviewClip, PreviewClips, WholePreview};
pub use sound::library::{read as read_music, schema as music_schema};
pub use sound::soundtrack;
pub use spec_file::{parse_spec, read_spec};
pub use stills::{PREVIEW_H, PREVIEW_W, REVIEW_CHECKLIST, Stills};
pub use task::render as render_job;

/// Tunes glibc's malloc for rendering; call first thing in `main`, before any thread
/// allocates. Two of its defaults keep memory a render has freed resident:
///
/// - Each thread that contends for the heap gets an arena of its own (up to 8 per core), and
///   memory freed in one arena is never reused by another: capped at [`MALLOC_ARENAS`].
/// - Blocks over the mmap threshold are mapped and unmapped on their own, but the threshold
///   rises to the largest block freed (up to 32 MB), after which large blocks come from the
///   heap and fragment it: fixed at [`MMAP_THRESHOLD`], above a frame (a 720×1280 RGBA frame
///   is 3.7 MB), so frames are still reused from the heap rather than paged in afresh.
///
/// Measured with `cargo bench -p pipeline --bench memory` (render peak RSS at 49 / 141 / 460 s
/// of video, the soundtrack made beside the video): by default 299 MB at 49 s; two arenas
/// 261 / 308 / 315 MB; a 1 MiB threshold too 246 / 250 / 251 MB but 10 % slower (every frame
/// paged in); 4 MiB 258 / 257 / 266 MB, within 5 % of the default's speed. Elsewhere than glibc
/// this does nothing.
///
/// x264 allocates each of its frames (4–8 MB) when it opens, so at 4 MiB they are mapped and
/// faulted in again for each encoder: with an encoder per chunk, 25 times in a 150-word render,
/// about half the render's system time. 8 MiB with a 128 MiB trim threshold kept them, and
/// saved 1.0 s of 13.3 (1.9 CPU-s, median of 5, 2026-11-30), but the daemon's render peak
/// (`scripts/bench_memory.py`) rose from 234 / 242 to 294 / 378 MB for 1- and 3-minute videos,
/// past the 300 MB aim; 8 MiB with the default trim halved the system time but saved no wall
/// time. Since 2026-12-02 a walk keeps one encoder open across its chunks
/// (`compositor::media::ChunkEncoder`), so its frames are mapped once per walk. (`mallopt` here overrides
/// `GLIBC_TUNABLES`: try other values through this function, not the environment.)
///
/// x264 already asks for transparent huge pages for its own large buffers (`x264_malloc`
/// aligns them to 2 MiB and madvises them): 61 MB of a 150-word render's walk sat on huge
/// pages, in 24 mappings. glibc asks for them on the rest of malloc's memory, its heaps
/// included, under `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` (read only at start; the kernel here
/// gives them on `madvise`): on a 150-word script the walk took a median 0.42 s less (4
/// alternated pairs, 9.4–10.1 s) and system time fell from 1.67–1.76 to 1.27–1.40 s. But the
/// 5-minute render peaked at 263–298 MB (4 runs) against 232–266 MB, and a 3-minute script's
/// build at 344 and 351 MB (the voice worker without and with huge pages) against 297–336 MB
/// and the 350 MB aim. So it is not set for every host (2026-12-01, 2 cores); a host with
/// memory to spare can set it in the environment.
pub fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's tunables, under the allocator's own lock; no
    // memory is touched.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MALLOC_ARENAS);
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}

/// Gives the allocator's free memory back to the system (`malloc_trim`): after a large, short
/// use such as the neural voice's inference, so the render that follows starts from a small
/// resident set. Elsewhere than glibc this does nothing.
pub fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages to the system, under the allocator's own
    // locks; no live allocation is touched.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Runs `work` on a thread of its own at the lowest scheduling priority (nice 19), and
/// returns its result (`None` if it panicked): for work that has until the end of a render to
/// finish and should take only the cores the render leaves idle.
///
/// The soundtrack's mix (`sound::Mix::new`: its loudness passes, about 1 CPU-s of a 150-word
/// video) runs this way beside the chunk walk, which kept 2 cores only about 80 % busy
/// between the x264 encoders' drains and the scenes' resolves (with an encoder per chunk,
/// until 2026-12-02). At the same priority it took
/// its share from the encoders instead: end to end 9.58 s against 9.18 s at nice 19 (median
/// of 4 alternated runs each, 2026-12-02, 2 cores; nice 10 gave 9.29 s), then 9.38 against
/// 9.26 s and 9.50 against 9.27 s (4 and 5 runs), the 5-minute daemon render's peak memory
/// unchanged (222 and 247 MB against 223 MB, `bench_memory.py`).
///
/// Only the mix runs here, not the soundtrack's encode: threads a thread starts inherit its
/// priority, and the encode starts GStreamer threads that its pools may later lend to a
/// chunk's muxer. Without privilege a thread cannot raise its priority again, so this one
/// ends with `work`. Under load from other renders the mix waits for their idle time, at
/// worst until this render's walk ends.
///
/// Tried this way and not kept: a new video's B-roll picked and fetched beside its narration.
/// The build of a 3-minute script took 6.8–7.1 s against 7.3–7.6 s, but peaked at 349–352 MB
/// against 330–333 MB (the fetch's heap beside the voice's worker; `malloc_trim` after the
/// fetch did not help), past the 350 MB aim.
pub(crate) fn in_spare_time<T: Send>(work: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                // Lowering one's own priority needs no privilege; where it fails anyway, the
                // work runs at the caller's.
                if let Err(e) = rustix::process::setpriority_process(None, SPARE_TIME_NICE) {
                    tracing::debug!(error = %e, "could not lower a thread's priority");
                }
                work()
            })
            .join()
            .ok()
    })
}

/// The nice value of [`in_spare_time`]'s threads: the lowest priority. On Linux it is the
/// calling thread's alone (`setpriority` on thread id 0).
const SPARE_TIME_NICE: i32 = 19;

/// Malloc arenas a process keeps (see [`tune_malloc`]).
pub(crate) const MALLOC_ARENAS: i32 = 2;
/// Blocks of this many bytes or more are mapped on their own (see [`tune_malloc`]).
pub(crate) const MMAP_THRESHOLD: i32 = 4 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::process::getpriority_process;

    #[test]
    fn spare_time_work_runs_at_the_lowest_priority_and_leaves_the_caller_s_alone() {
        let before = getpriority_process(None).unwrap();
        let (result, nice) = in_spare_time(|| (6 * 7, getpriority_process(None).unwrap())).unwrap();
        assert_eq!(result, 42);
        assert_eq!(nice, SPARE_TIME_NICE, "the work ran at nice {nice}");
        assert_eq!(
            getpriority_process(None).unwrap(),
            before,
            "the caller's priority moved"
        );
    }

    #[test]
    fn spare_time_work_that_panics_is_none() {
        assert_eq!(in_spare_time(|| -> u8 { panic!("mixing failed") }), None);
    }
}
