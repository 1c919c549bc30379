//! stub
pub fn html_report(_record: &serde_json::Value) -> String {
    String::new()
}
