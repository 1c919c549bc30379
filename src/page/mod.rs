//! The page's frame around the views: the state every view reads (`store`),
//! opening data (`opening`) with its progress, error and mapping panels, and the
//! theme control.

pub mod aggregate;
pub mod mapping;
pub mod opening;
pub mod panels;
pub mod store;
pub mod theme;
