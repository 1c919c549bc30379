//! `cargo xtask`: builds the web app into `dist/` and serves it.
//!
//! - `cargo xtask dist [--no-opt] [--names] [--out DIR]`: `cargo build` of the app's one wasm
//!   module (crates/web; the page and the worker load the same `app_bg.wasm`) for
//!   wasm32-unknown-unknown with profile `wasm-release` (small code, except the
//!   worker's hot crates) and 128-bit SIMD, wasm-bindgen (this crate links
//!   `wasm-bindgen-cli-support` at exactly the version of Cargo.lock, so no CLI has
//!   to be installed), `wasm-opt` from the project-local npm `binaryen` (never a
//!   system one: Debian's binaryen 108 silently breaks the module), then the static
//!   files. Prints and writes `dist/sizes.json` (raw and gzip sizes of the wasm),
//!   then `dist/precache.json` (every built file with its SHA-256, and a cache name
//!   derived from them) for the service worker `sw.js`. `--names` keeps the wasm
//!   functions' names (a bigger bundle, for the browser's profiler).
//! - `cargo xtask serve [--port 8080] [--port-file FILE] [--dir dist]`: a small static
//!   server on 127.0.0.1 with the right MIME types and the page's CSP as a header.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

/// The app's binary (crates/web: the page and the worker).
const BIN: &str = "calibscope-web";
/// Its cargo profile (Cargo.toml: opt-level "z", the worker's hot crates at 3).
const PROFILE: &str = "wasm-release";
/// The module's name in `dist/`: `app.js` and `app_bg.wasm`.
const MODULE: &str = "app";
/// wasm-opt's level: for size (the hot crates' speed is LLVM's opt-level 3; see
/// BENCHMARKS.md, "Bundle size"; the
/// measurements behind it are in `git log -p BENCHMARKS.md`).
const WASM_OPT_LEVEL: &str = "-Oz";

/// The binaryen version wasm-opt must have (npm `binaryen@132.0.0`).
const WASM_OPT_VERSION: &str = "version 132";

/// The Content-Security-Policy of every response (index.html carries the same).
pub const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("dist") => dist(&args[1..]),
        Some("serve") => serve(&args[1..]),
        _ => Err(
            "usage: cargo xtask dist [--no-opt] [--names] [--out DIR] | serve [--port N] [--port-file F] [--dir D]"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn flag_value(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed: {status}"))
    }
}

fn dist(args: &[String]) -> Result<(), String> {
    let root = root();
    // `--out DIR`: build into DIR instead of `dist/` (several builds side by side)
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("dist"));
    let started = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    eprintln!("== cargo build {BIN} (wasm32-unknown-unknown, profile {PROFILE})");
    run(Command::new(&cargo).current_dir(&root).args([
        "build",
        "--locked",
        "--profile",
        PROFILE,
        "--target",
        "wasm32-unknown-unknown",
        "-p",
        BIN,
        "--bin",
        BIN,
    ]))?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("wasm32-unknown-unknown");
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("cannot clear dist/: {e}"))?;
    }
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    // `--names`: keep the functions' names (for the browser's profiler)
    let keep_names = args.iter().any(|a| a == "--names");
    eprintln!("== wasm-bindgen {BIN} -> dist/{MODULE}.js");
    let mut bindgen = wasm_bindgen_cli_support::Bindgen::new();
    bindgen
        .input_path(target.join(PROFILE).join(format!("{BIN}.wasm")))
        .out_name(MODULE)
        .typescript(false)
        .remove_name_section(!keep_names)
        .remove_producers_section(true);
    bindgen.web(true).map_err(|e| e.to_string())?;
    bindgen
        .generate(&out)
        .map_err(|e| format!("wasm-bindgen {BIN}: {e:#}"))?;
    let no_opt = args.iter().any(|a| a == "--no-opt");
    if !no_opt {
        let wasm_opt = wasm_opt(&root)?;
        let file = out.join(format!("{MODULE}_bg.wasm"));
        eprintln!("== wasm-opt {WASM_OPT_LEVEL} dist/{MODULE}_bg.wasm");
        run(Command::new(&wasm_opt)
            .arg(&file)
            .arg("-o")
            .arg(&file)
            .args(keep_names.then_some("--debuginfo"))
            .args([
                WASM_OPT_LEVEL,
                "--enable-bulk-memory",
                "--enable-nontrapping-float-to-int",
                "--enable-sign-ext",
                "--enable-mutable-globals",
                "--enable-reference-types",
                "--enable-multivalue",
                "--enable-simd",
            ]))?;
    }
    copy(&root.join("index.html"), &out.join("index.html"))?;
    copy(&root.join("assets/favicon.svg"), &out.join("favicon.svg"))?;
    for f in ["boot.js", "worker_loader.js", "sw.js"] {
        copy(&root.join("assets/js").join(f), &out.join(f))?;
    }
    copy_dir(&root.join("style"), &out.join("style"))?;
    copy_dir(&root.join("assets/examples"), &out.join("assets/examples"))?;
    let bytes = std::fs::read(out.join(format!("{MODULE}_bg.wasm"))).map_err(|e| e.to_string())?;
    let total_gz = gzip_size(&bytes);
    eprintln!(
        "   {MODULE}_bg.wasm: {} bytes, {total_gz} bytes gzipped",
        bytes.len()
    );
    let report = format!(
        "{{\n  \"{MODULE}\": {{\"bytes\": {}, \"gzip\": {total_gz}}},\n  \"total_gzip\": {total_gz}\n}}\n",
        bytes.len()
    );
    std::fs::write(out.join("sizes.json"), report).map_err(|e| e.to_string())?;
    let precache = precache_json(&out)?;
    std::fs::write(out.join("precache.json"), precache).map_err(|e| e.to_string())?;
    eprintln!(
        "== dist/ ready in {:.0} s; wasm total {} KB gzipped{}",
        started.elapsed().as_secs_f64(),
        total_gz / 1000,
        if no_opt { " (not optimised)" } else { "" }
    );
    Ok(())
}

/// Files of `dist/` the service worker does not cache (its list, its own script,
/// the build's size report).
const NOT_PRECACHED: [&str; 3] = ["precache.json", "sw.js", "sizes.json"];

fn files_under(dir: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = format!("{rel}{}", entry.file_name().to_string_lossy());
        if entry.path().is_dir() {
            files_under(&entry.path(), &format!("{name}/"), out)?;
        } else if !NOT_PRECACHED.contains(&name.as_str()) {
            out.push(name);
        }
    }
    Ok(())
}

/// `{"cache": "calibscope-<16 hex>", "files": [{"name", "bytes", "sha256"}]}`: the
/// built files, sorted, and a cache name that changes with any of them.
fn precache_json(dist: &Path) -> Result<String, String> {
    let mut names = Vec::new();
    files_under(dist, "", &mut names)?;
    names.sort();
    let mut lines = String::new();
    let mut files = Vec::new();
    for name in &names {
        let bytes = std::fs::read(dist.join(name)).map_err(|e| format!("{name}: {e}"))?;
        let sha = calibscope_share::sha256_hex(&bytes);
        lines.push_str(&format!("{name} {sha}\n"));
        files.push(format!(
            "    {{\"name\": \"{name}\", \"bytes\": {}, \"sha256\": \"{sha}\"}}",
            bytes.len()
        ));
    }
    let build = calibscope_share::sha256_hex(lines.as_bytes());
    Ok(format!(
        "{{\n  \"cache\": \"calibscope-{}\",\n  \"files\": [\n{}\n  ]\n}}\n",
        &build[..16],
        files.join(",\n")
    ))
}

/// The project-local wasm-opt (npm `binaryen`), checked to be version 132.
fn wasm_opt(root: &Path) -> Result<PathBuf, String> {
    let path = root.join("node_modules/.bin/wasm-opt");
    if !path.exists() {
        return Err(format!(
            "{} not found: run `npm ci` at the repository root (installs binaryen@132 locally), or pass --no-opt",
            path.display()
        ));
    }
    let out = Command::new(&path)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
    let version = String::from_utf8_lossy(&out.stdout).to_string();
    if !version.contains(WASM_OPT_VERSION) {
        return Err(format!(
            "{} is {:?}, expected binaryen {WASM_OPT_VERSION}",
            path.display(),
            version.trim()
        ));
    }
    Ok(path)
}

/// Size of the gzip file of `bytes` at level 9 (deflate + 18 bytes of framing).
fn gzip_size(bytes: &[u8]) -> usize {
    miniz_oxide::deflate::compress_to_vec(bytes, 9).len() + 18
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()))?;
        } else {
            copy(&path, &to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

fn serve(args: &[String]) -> Result<(), String> {
    let port: u16 = flag_value(args, "--port")
        .map(|p| p.parse().map_err(|_| format!("bad port {p:?}")))
        .transpose()?
        .unwrap_or(8080);
    let dir = flag_value(args, "--dir")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("dist"));
    if !dir.join("index.html").exists() {
        return Err(format!(
            "{} has no index.html: run `cargo xtask dist` first",
            dir.display()
        ));
    }
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    if let Some(f) = flag_value(args, "--port-file") {
        // written aside, then renamed: a reader never sees the file empty
        let aside = format!("{f}.{}", std::process::id());
        std::fs::write(&aside, format!("{port}\n")).map_err(|e| format!("{aside}: {e}"))?;
        std::fs::rename(&aside, &f).map_err(|e| format!("{f}: {e}"))?;
    }
    eprintln!(
        "== serving {} on http://127.0.0.1:{port}/ (Ctrl-C to stop)",
        dir.display()
    );
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let dir = dir.clone();
        std::thread::spawn(move || {
            let _ = handle(stream, &dir);
        });
    }
    Ok(())
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "csv" => "text/csv; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        _ => "application/octet-stream",
    }
}

fn handle(mut stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
        let mut content_length = 0usize;
        let mut close = false;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 {
                return Ok(());
            }
            let h = header.trim_end();
            if h.is_empty() {
                break;
            }
            let lower = h.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                content_length = v.trim().parse().unwrap_or(0);
            }
            if lower.starts_with("connection:") && lower.contains("close") {
                close = true;
            }
        }
        if content_length > 0 {
            let mut body = vec![0u8; content_length.min(1 << 20)];
            reader.read_exact(&mut body)?;
        }
        let path = target.split(['?', '#']).next().unwrap_or("/");
        let rel = path.trim_start_matches('/');
        let rel = if rel.is_empty() { "index.html" } else { rel };
        let safe = !rel.split('/').any(|c| c == ".." || c.contains('\\'));
        let file = dir.join(rel);
        let (status, ctype, body) = if method != "GET" && method != "HEAD" {
            (
                "405 Method Not Allowed",
                "text/plain",
                b"method not allowed".to_vec(),
            )
        } else if !safe {
            ("400 Bad Request", "text/plain", b"bad path".to_vec())
        } else {
            match std::fs::read(&file) {
                Ok(bytes) if file.is_file() => ("200 OK", content_type(&file), bytes),
                _ => ("404 Not Found", "text/plain", b"not found".to_vec()),
            }
        };
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nContent-Security-Policy: {CSP}\r\n{}\r\n",
            body.len(),
            if close { "Connection: close\r\n" } else { "" }
        );
        stream.write_all(head.as_bytes())?;
        if method != "HEAD" {
            stream.write_all(&body)?;
        }
        stream.flush()?;
        if close {
            return Ok(());
        }
    }
}
