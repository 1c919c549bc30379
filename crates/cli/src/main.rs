fn main() {
    eprintln!("calibscope: not built yet");
    std::process::exit(2)
}
