//! A table's link, `http(s)://HOST[:PORT]/t/CODE`: the browser table's page for the table,
//! and what any call naming a table takes. One reading of it for the server (which table)
//! and the clients (which server too).

/// What a link names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link<'a> {
    /// The server as clients dial it: `host:port` for an http link, `https://host:port` for
    /// an https one (the scheme's port when the link gives none).
    pub server: String,
    /// The table's code (or id): the path's segment after `/t/`.
    pub code: &'a str,
}

/// The server and table a link names: its path alone counts (no query, no fragment), and
/// must be `/t/CODE`. None for anything else.
pub fn parse(link: &str) -> Option<Link<'_>> {
    let (scheme, rest) = link.trim().split_once("://")?;
    let port = match scheme {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let rest = rest.split(['?', '#']).next()?;
    let (host, path) = rest.split_once('/')?;
    let code = path.strip_prefix("t/")?.split('/').next()?;
    if host.is_empty() || code.is_empty() {
        return None;
    }
    // A port of its own, unless the host is a bare IPv6 address.
    let has_port = host.rsplit_once(':').is_some_and(|(h, p)| !h.ends_with(':') && p.parse::<u16>().is_ok());
    let server = if has_port { host.to_string() } else { format!("{host}:{port}") };
    // An https link's server speaks TLS: clients must dial it so.
    let server = if scheme == "https" { format!("https://{server}") } else { server };
    Some(Link { server, code })
}

/// The rejoin secret a seat's own link carries in its fragment (`…/t/CODE#rejoin=SECRET`, or
/// `CODE#rejoin=SECRET`), if it carries one: empty when the link was cut short, so that it is
/// refused as a link rather than taken for a table.
pub fn rejoin(link: &str) -> Option<&str> {
    let (_, fragment) = link.trim().split_once('#')?;
    fragment.split('&').find_map(|part| part.strip_prefix("rejoin="))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(link: &str) -> Option<&str> {
        parse(link).map(|l| l.code)
    }

    #[test]
    fn a_seat_link_carries_its_rejoin_secret_in_its_fragment() {
        assert_eq!(rejoin("http://h/t/ABCDEF#rejoin=s3cret"), Some("s3cret"));
        assert_eq!(rejoin("http://h/t/ABCDEF"), None);
        assert_eq!(rejoin("http://h/t/ABCDEF#rejoin="), Some(""), "cut short: still a link");
        assert_eq!(rejoin("ABCDEF#rejoin=s3cret"), Some("s3cret"));
    }

    #[test]
    fn a_link_names_its_server_and_the_table_its_path_does() {
        let link = parse("http://127.0.0.1:50051/t/ABCDEF").unwrap();
        assert_eq!((link.server.as_str(), link.code), ("127.0.0.1:50051", "ABCDEF"));
        assert_eq!(
            parse("https://dudo.example.org/t/ABCDEF/").unwrap().server,
            "https://dudo.example.org:443"
        );
        assert_eq!(parse("https://127.0.0.1:50443/t/ABCDEF").unwrap().server, "https://127.0.0.1:50443");
        assert_eq!(code("http://h/t/AAAAAA?next=/t/BBBBBB"), Some("AAAAAA"));
        assert_eq!(code("http://h/t/AAAAAA#/t/BBBBBB"), Some("AAAAAA"));
        assert_eq!(code("http://h/t/AAAAAA/t/BBBBBB"), Some("AAAAAA"));
        assert_eq!(code("http://h/x?/t/BBBBBB"), None);
        assert_eq!(code("ftp://h/t/AAAAAA"), None);
        assert_eq!(code("dudo://join/ABCDEF"), None);
        assert_eq!(code("ABCDEF"), None);
    }
}
