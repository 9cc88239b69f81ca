//! Blocking work off the async reactor: a redb commit fsyncs, and a store read, geometry, an
//! edit or a file write can take milliseconds, so async code hands them to tokio's blocking
//! pool and the reactor stays free to answer `/healthz`, status polls and every other request
//! while renders run. The work keeps the caller's span, so its log lines carry the
//! `request_id` of the request it serves.

use crate::error::{Error, Result};

/// Runs `f` on the blocking pool with the current span.
pub fn spawn<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> tokio::task::JoinHandle<T> {
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || span.in_scope(f))
}

/// [`spawn`] for fallible work; a task that panicked is an internal error.
pub async fn run<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    spawn(f).await.unwrap_or_else(|e| Err(Error::internal(e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    #[tokio::test]
    async fn runs_the_work_on_another_thread_and_returns_its_value() {
        let here = std::thread::current().id();
        let there = run(|| Ok(std::thread::current().id())).await.unwrap();
        assert_ne!(here, there);
    }

    #[tokio::test]
    async fn a_panicking_task_is_an_internal_error() {
        let e = run::<()>(|| panic!("boom")).await.unwrap_err();
        assert_eq!(e.code, Code::Internal);
    }

    #[tokio::test]
    async fn the_works_error_comes_back_unchanged() {
        let e = run::<()>(|| Err(Error::new(Code::InvalidValue, "no")))
            .await
            .unwrap_err();
        assert_eq!(e.code, Code::InvalidValue);
    }
}
