//! The full audit as calibscope-audit/1 JSON.
