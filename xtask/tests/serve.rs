//! `xtask serve`, the server of `tools/run.sh` and of the browser tests, over real
//! sockets: the page and its module with their MIME types and the page's CSP as a
//! header; no path out of the served folder; only GET and HEAD; a folder without
//! `index.html` refused with the command that makes one.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A served folder and the server, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn start(name: &str) -> Server {
    let root = scratch(name);
    let dist = root.join("dist");
    std::fs::create_dir_all(dist.join("examples")).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(dist.join("app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
    std::fs::write(dist.join("examples/a.csv"), "label,p\n1,0.9\n").unwrap();
    std::fs::write(root.join("secret.txt"), "outside the served folder").unwrap();
    let port_file = root.join("port");
    let child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["serve", "--port", "0", "--port-file"])
        .arg(&port_file)
        .arg("--dir")
        .arg(&dist)
        .stderr(Stdio::null())
        .spawn()
        .expect("xtask runs");
    let mut server = Server {
        child,
        port: 0,
        dir: root,
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.port == 0 {
        if let Some(port) = std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            server.port = port;
        } else {
            assert!(Instant::now() < deadline, "the server wrote no port file");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    server
}

/// `(status line, headers in lower case, body)` of one request.
fn request(port: u16, method: &str, target: &str) -> (String, String, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let (status, headers) = head.split_once("\r\n").unwrap_or((&head, ""));
    (
        status.to_string(),
        headers.to_ascii_lowercase(),
        raw[split + 4..].to_vec(),
    )
}

fn header<'a>(headers: &'a str, name: &str) -> Option<&'a str> {
    headers
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(str::trim)
}

#[test]
fn serves_the_page_and_its_files_with_types_and_the_csp() {
    let s = start("files");
    for (target, ctype, body) in [
        (
            "/",
            "text/html; charset=utf-8",
            &b"<!doctype html><title>t</title>"[..],
        ),
        (
            "/index.html?x=1#y",
            "text/html; charset=utf-8",
            b"<!doctype html><title>t</title>",
        ),
        ("/app_bg.wasm", "application/wasm", b"\0asm\x01\0\0\0"),
        (
            "/examples/a.csv",
            "text/csv; charset=utf-8",
            b"label,p\n1,0.9\n",
        ),
    ] {
        let (status, headers, got) = request(s.port, "GET", target);
        assert_eq!(status, "HTTP/1.1 200 OK", "{target}");
        assert_eq!(header(&headers, "content-type"), Some(ctype), "{target}");
        assert_eq!(got, body, "{target}");
        let csp = header(&headers, "content-security-policy").expect("a CSP header");
        // nothing may be fetched from another origin
        assert!(csp.contains("default-src 'self'") && csp.contains("connect-src 'self'"));
        assert_eq!(header(&headers, "x-content-type-options"), Some("nosniff"));
    }
    // HEAD: the same headers, no body
    let (status, headers, got) = request(s.port, "HEAD", "/app_bg.wasm");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(header(&headers, "content-length"), Some("8"));
    assert!(got.is_empty());
}

#[test]
fn refuses_paths_out_of_the_folder_other_methods_and_missing_files() {
    let s = start("refuse");
    assert!(Path::new(&s.dir.join("secret.txt")).exists());
    for target in [
        "/../secret.txt",
        "/examples/../../secret.txt",
        "/..\\secret.txt",
    ] {
        let (status, _, body) = request(s.port, "GET", target);
        assert_eq!(status, "HTTP/1.1 400 Bad Request", "{target}");
        assert!(
            !String::from_utf8_lossy(&body).contains("outside"),
            "{target}"
        );
    }
    let (status, _, _) = request(s.port, "POST", "/index.html");
    assert_eq!(status, "HTTP/1.1 405 Method Not Allowed");
    let (status, _, _) = request(s.port, "GET", "/nothing.js");
    assert_eq!(status, "HTTP/1.1 404 Not Found");
    // a folder is not a file
    let (status, _, _) = request(s.port, "GET", "/examples");
    assert_eq!(status, "HTTP/1.1 404 Not Found");
}

#[test]
fn a_folder_without_a_page_is_refused_with_the_command_that_makes_one() {
    let dir = scratch("empty");
    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["serve", "--port", "0", "--dir"])
        .arg(&dir)
        .output()
        .expect("xtask runs");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has no index.html") && err.contains("cargo xtask dist"),
        "{err}"
    );
}
