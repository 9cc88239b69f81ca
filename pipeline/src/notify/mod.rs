//! Notifications, client links and problem reports: the typed requests, the delivery channels
//! behind the [`channel::Sender`] trait (`email.rs` SMTP, `telegram.rs` the Bot API connector),
//! the hourly limit (`rate.rs`), the signed no-login links of an account's pages (`link.rs`),
//! `notification/send` (`send.rs`), `client_link/send` (`client_link.rs`) and `error/report`
//! (`report.rs`).

pub(crate) mod channel;
pub(crate) mod client_link;
pub(crate) mod config;
pub(crate) mod email;
pub(crate) mod link;
pub(crate) mod rate;
pub(crate) mod report;
pub(crate) mod request;
pub(crate) mod send;
pub(crate) mod telegram;

// The facade: what the crates above may name.
pub use channel::mask_email;
pub use client_link::{
    ClientLinkBody, ClientLinkReply, LinkClaims, LinkRefused, LinkRequest, LinkType, RecordPage,
    open as open_link, send as send_client_link,
};
pub use config::{NotifyConfig, SPEC_NOTIFICATIONS_PER_HOUR, SmtpConfig, TelegramConfig};
pub use report::{
    ErrorReportBody, ErrorReportReply, ReportRequest, list as list_reports, report as report_error,
};
pub use request::NotificationBody;
pub use send::{NotificationReply, Notifier};

use std::sync::Arc;

use foundation::config::Settings;
use foundation::connector::Http;
use foundation::fetch::Fetcher;
use foundation::store::Store;

/// The notification service of `settings`: the configured channels, the store and the guard.
pub fn notifier(
    settings: &Settings,
    store: Arc<Store>,
    fetcher: Fetcher,
    runtime: tokio::runtime::Handle,
) -> Result<send::Notifier, String> {
    let email = email::Email::new(&settings.section::<SmtpConfig>(), runtime.clone())?
        .map(|e| Arc::new(e) as Arc<dyn channel::Sender>);
    let tg = settings.section::<TelegramConfig>();
    let telegram = (!tg.bot_token.is_empty()).then(|| {
        Arc::new(telegram::Telegram {
            http: Http {
                fetcher: fetcher.clone(),
                runtime,
                timeout: std::time::Duration::from_secs(tg.timeout_secs.max(1)),
                max_bytes: 1024 * 1024,
            },
            api_base: tg.api_base.clone(),
            token: tg.bot_token.clone(),
        }) as Arc<dyn channel::Sender>
    });
    Ok(send::Notifier {
        senders: send::Senders { email, telegram },
        store,
        fetcher,
        max_per_hour: settings.section::<NotifyConfig>().max_per_hour,
        link_secret: settings.webhook.signing_secret.clone(),
        app_url: settings.app_url.clone(),
    })
}
