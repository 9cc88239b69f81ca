//! The notification sections of the config file: `[smtp]` (email), `[telegram]` (the messaging
//! channel) and `[notify]` (the service team's side, and the hourly cap).

use foundation::config::{Mode, Section};
use serde::Deserialize;

/// Email over SMTP. Off (no email channel) while `host` is empty.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SmtpConfig {
    /// The relay's host name; empty: no email is sent.
    pub host: String,
    /// 587 for submission with STARTTLS, 25 for a local relay.
    pub port: u16,
    /// Login (with `pass`) when not empty.
    pub user: String,
    pub pass: String,
    /// The `From:` address, e.g. `Reelsmith <noreply@example.com>`.
    pub from: String,
    /// Upgrade the connection with STARTTLS before anything is sent (required when on).
    pub starttls: bool,
    /// A PEM certificate trusted in addition to the system's roots (a private relay's own
    /// certificate); empty: the system's roots only.
    pub ca_file: String,
    pub timeout_secs: u64,
}

impl Default for SmtpConfig {
    fn default() -> Self {
        SmtpConfig {
            host: String::new(),
            port: 587,
            user: String::new(),
            pass: String::new(),
            from: "Reelsmith <noreply@localhost>".into(),
            starttls: true,
            ca_file: String::new(),
            timeout_secs: 30,
        }
    }
}

/// The Telegram Bot API. Off (no messaging channel) while `bot_token` is empty.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelegramConfig {
    /// API root; the host passes the SSRF guard (a local fake must be in `fetch.allow`).
    pub api_base: String,
    pub bot_token: String,
    pub timeout_secs: u64,
}

impl Default for TelegramConfig {
    fn default() -> Self {
        TelegramConfig {
            api_base: "https://api.telegram.org".into(),
            bot_token: String::new(),
            timeout_secs: 30,
        }
    }
}

/// The spec's limit of messages an account may send per hour.
pub const SPEC_NOTIFICATIONS_PER_HOUR: usize = 60;

/// The service team's side of notifications.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NotifyConfig {
    /// Where `error/report` forwards reports by email; empty: reports are only stored
    /// (`reelsmith reports list`).
    pub operator_email: String,
    /// Messages an account may send per hour, whichever endpoint sends them
    /// (`notification/send`, `client_link/send` with channels, a forwarded `error/report`);
    /// the spec's 60 by default. At least 1.
    pub max_per_hour: usize,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            operator_email: String::new(),
            max_per_hour: SPEC_NOTIFICATIONS_PER_HOUR,
        }
    }
}

impl Section for SmtpConfig {
    const NAME: &'static str = "smtp";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if !self.host.is_empty() && self.from.parse::<lettre::message::Mailbox>().is_err() {
            return Err("smtp.from must be an address such as `Name <a@b.example>`".into());
        }
        Ok(())
    }
}

impl Section for TelegramConfig {
    const NAME: &'static str = "telegram";
}

impl Section for NotifyConfig {
    const NAME: &'static str = "notify";

    fn check(&self, _mode: Mode) -> Result<(), String> {
        if self.max_per_hour == 0 {
            return Err("notify.max_per_hour must be at least 1".into());
        }
        Ok(())
    }
}

/// Rules between the sections: the operator's email goes out through `[smtp]`.
pub(crate) fn check_together(notify: &NotifyConfig, smtp: &SmtpConfig) -> Result<(), String> {
    if !notify.operator_email.is_empty() && smtp.host.is_empty() {
        return Err("notify.operator_email needs an [smtp] host to send through".into());
    }
    Ok(())
}
