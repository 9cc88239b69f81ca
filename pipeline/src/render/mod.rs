//! Rendering: a video document becomes a compositor render plan, an MP4, or stills
//! (screenshots and overlay posters). Uses `core` only.

pub mod chunks;
pub mod contact_sheet;
pub mod half;
pub mod plan;
pub mod preview;
pub mod sound;
pub mod spec_file;
pub mod stills;
pub mod task;

/// Caps glibc's malloc at [`MALLOC_ARENAS`] arenas for the whole process; call first thing
/// in `main`, before any thread allocates. glibc gives each thread that contends for the heap
/// an arena of its own (up to 8 per core), and memory freed in one arena is never reused by
/// another: a render's rayon and GStreamer threads left about 75 MB of such fragments
/// resident (`cargo bench -p pipeline --bench memory`, 49 s of video: peak 299 MB with the
/// default, 224 MB capped at 2, at the same speed). Elsewhere than glibc this does nothing.
pub fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets one of the allocator's tunables, under the allocator's own
    // lock; no memory is touched.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MALLOC_ARENAS);
    }
}

/// Malloc arenas a process keeps (see [`limit_malloc_arenas`]).
pub const MALLOC_ARENAS: i32 = 2;
