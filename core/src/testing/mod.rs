//! Test support (feature `testing`): fuzz entry points and the deterministic network
//! simulation. Compiled into ordinary builds that enable the feature, never into the service.

pub mod fuzz;
#[cfg(feature = "html5-oracle")]
pub mod html5_oracle;
pub mod sim;
