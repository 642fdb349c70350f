//! `[mcp.servers.NAME]` tables: both transports with every field reach `ServerSpec`,
//! `${VAR}` is expanded from the environment, mistakes are refused naming the server, the
//! field and the line, and env/header values never appear in errors, `config show` or Debug.

// Test helpers may unwrap, expect and panic too: clippy.toml covers only #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::config_support;

use config_support::{env_of, load_in, temp_dir, write};
use std::time::Duration;
use steward_mcp::Transport;
use steward_protocol::Effect;

const SECRET: &str = "tracker-secret-token-42";

#[test]
fn both_transports_and_every_field() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        "[mcp.servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-filesystem\", \"/srv\"]\n\
         env = { LOG = \"quiet\", KEY = \"k-${FILES_KEY}\" }\ntimeout_secs = 40\nallow_sampling = true\ntrust_annotations = true\n\
         tools.read_text_file.effect = \"read\"\ntools.\"write-file\".effect = \"destructive\"\n\n\
         [mcp.servers.tracker]\nurl = \"https://mcp.example.com/mcp\"\n\
         headers = { Authorization = \"Bearer ${TRACKER_TOKEN}\" }\nenabled = false\n\n\
         [mcp.servers.tracker.tools.close_issue]\neffect = \"external\"\n",
    );
    let env = env_of(&dir, &[("TRACKER_TOKEN", SECRET), ("FILES_KEY", "abc123")]);
    let loaded = load_in(&dir, None, &env).unwrap();
    let servers = &loaded.settings.mcp_servers;
    assert_eq!(servers.len(), 2);
    let files = &servers[0];
    assert_eq!(files.name, "files");
    assert_eq!(files.timeout, Duration::from_secs(40));
    assert!(files.enabled && files.allow_sampling && files.trust_annotations);
    assert_eq!(files.effects["read_text_file"], Effect::Read);
    assert_eq!(files.effects["write-file"], Effect::Destructive);
    match &files.transport {
        Transport::Stdio { command, args, env } => {
            assert_eq!(command, "npx");
            assert_eq!(args.len(), 3);
            assert_eq!(env["KEY"], "k-abc123");
            assert_eq!(env["LOG"], "quiet");
        }
        other => panic!("{other:?}"),
    }
    let tracker = &servers[1];
    assert!(!tracker.enabled && !tracker.allow_sampling);
    assert!(
        !tracker.trust_annotations,
        "annotations are not trusted by default"
    );
    assert_eq!(tracker.timeout, steward_mcp::DEFAULT_CALL_TIMEOUT);
    assert_eq!(tracker.effects["close_issue"], Effect::External);
    match &tracker.transport {
        Transport::Http { url, headers } => {
            assert_eq!(url, "https://mcp.example.com/mcp");
            assert_eq!(headers["Authorization"], format!("Bearer {SECRET}"));
        }
        other => panic!("{other:?}"),
    }
    let show = loaded.render_show();
    assert!(show.contains("mcp.servers.files"), "{show}");
    assert!(
        show.contains("/srv (annotations trusted)"),
        "config show says whose annotations are trusted: {show}"
    );
    assert!(
        !show.contains("mcp.example.com/mcp (disabled, annotations"),
        "{show}"
    );
    assert!(
        show.contains("http https://mcp.example.com/mcp (disabled)"),
        "{show}"
    );
    assert!(!show.contains(SECRET) && !show.contains("abc123"), "{show}");
    let debug = format!("{:?}", loaded.settings);
    assert!(
        !debug.contains(SECRET) && !debug.contains("abc123"),
        "{debug}"
    );
    assert!(debug.contains("Authorization"), "header names stay visible");
}

#[test]
fn mistakes_are_refused_naming_server_field_and_line() {
    let cases: &[(&str, &str)] = &[
        (
            "[mcp.servers.a]\ncommand = \"x\"\ncomand = \"y\"\n",
            "unknown key `mcp.servers.a.comand`",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\nurl = \"http://h/mcp\"\n",
            "has both `command` and `url`",
        ),
        ("[mcp.servers.a]\ntimeout_secs = 5\n", "needs `command`"),
        (
            "[mcp.servers.Bad-Name]\ncommand = \"x\"\n",
            "mcp.servers.Bad-Name",
        ),
        (
            "[mcp.servers.a__b]\ncommand = \"x\"\n",
            "server names must be",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\nargs = \"-v\"\n",
            "`mcp.servers.a.args`",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\nargs = [\"-v\", 3]\n",
            "an array holding an integer",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\ntimeout_secs = 0\n",
            "between 1 and 600",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\nenabled = \"yes\"\n",
            "must be true or false",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\ntrust_annotations = \"yes\"\n",
            "invalid value for `mcp.servers.a.trust_annotations` from file",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\n\ntrust_annotations = 1\n",
            "line 4: must be true or false, got an integer",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\ntrust_anotations = true\n",
            "did you mean `mcp.servers.a.trust_annotations`",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\ntools.t.effect = \"memory\"\n",
            "`mcp.servers.a.tools.t.effect`",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\ntools.t.efect = \"read\"\n",
            "did you mean `mcp.servers.a.tools.t.effect`",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\nheaders = { A = \"b\" }\n",
            "applies only to `url` servers",
        ),
        (
            "[mcp.servers.a]\nurl = \"ftp://h/x\"\n",
            "must be an http:// or https:// URL",
        ),
        (
            "[mcp.servers.a]\nurl = \"http://h/x\"\nenv = { A = \"b\" }\n",
            "applies only to `command` servers",
        ),
        (
            "[mcp.servers.a]\nurl = \"http://h/x\"\nheaders = { \"Bad Header\" = \"v\" }\n",
            "not a valid header name",
        ),
        (
            "[mcp.servers.a]\ncommand = \"x\"\nenv = { K = \"${NOT_SET_ANYWHERE}\" }\n",
            "NOT_SET_ANYWHERE, which is not set",
        ),
        ("[mcp.servers.a]\ncommand = \"\"\n", "must not be empty"),
        ("[mcp]\nserver = {}\n", "unknown key `mcp.server`"),
        (
            "[mcp.servers]\na = 5\n",
            "must be a table like [mcp.servers.NAME]",
        ),
    ];
    for (text, expected) in cases {
        let dir = temp_dir();
        write(&dir, "steward.toml", text);
        let err = load_in(&dir, None, &env_of(&dir, &[]))
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{text:?}: {err}");
        assert!(err.contains("steward.toml"), "names the file: {err}");
    }
}

#[test]
fn errors_about_secret_values_do_not_quote_them() {
    let dir = temp_dir();
    write(
        &dir,
        "steward.toml",
        &format!(
            "[mcp.servers.a]\nurl = \"http://h/mcp\"\nheaders = {{ Authorization = \"Bearer {SECRET}\\n\" }}\n"
        ),
    );
    let err = load_in(&dir, None, &env_of(&dir, &[]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("control characters"), "{err}");
    assert!(err.contains("line 3"), "{err}");
    assert!(!err.contains(SECRET), "{err}");
}
