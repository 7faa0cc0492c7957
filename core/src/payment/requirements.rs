//! The service's `PaymentRequirements` (docs/payments.md): built once from configuration,
//! so every 402 carries byte-identical `accepts` and the paid retry's `accepted` can be
//! matched against them.

use crate::payment::wire::{
    Eip712Extra, PaymentRequired, PaymentRequirements, ResourceInfo, X402_VERSION,
};

/// USDC's decimals: 1 USD = 1 000 000 atomic units.
pub const USDC_DECIMALS: u32 = 6;
/// Base mainnet (CAIP-2).
pub const BASE_MAINNET: &str = "eip155:8453";
/// Base mainnet USDC.
pub const BASE_MAINNET_USDC: &str = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/// Why a price is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PriceError {
    /// Not a plain positive decimal number (`"0.01"`).
    NotDecimal,
    /// More fractional digits than the asset has.
    TooPrecise,
    /// Zero.
    Zero,
}

impl std::fmt::Display for PriceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotDecimal => write!(f, "price must be a positive decimal number such as 0.01"),
            Self::TooPrecise => write!(f, "price has more than {USDC_DECIMALS} decimal places"),
            Self::Zero => write!(f, "price must be greater than zero"),
        }
    }
}

impl std::error::Error for PriceError {}

/// Converts a USD price (`"0.01"`) into atomic units of a 6-decimal stablecoin (`"10000"`),
/// exactly (no floating point).
///
/// # Errors
/// [`PriceError`] for anything but a positive decimal with at most 6 fractional digits.
pub fn atomic_amount(price_usd: &str) -> Result<String, PriceError> {
    let price = price_usd.trim();
    let (whole, fraction) = price.split_once('.').unwrap_or((price, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty())
        || !digits(whole)
        || !digits(fraction)
        || whole.len() > 12
    {
        return Err(PriceError::NotDecimal);
    }
    let fraction = fraction.trim_end_matches('0');
    if fraction.len() > USDC_DECIMALS as usize {
        return Err(PriceError::TooPrecise);
    }
    let padded = format!("{fraction:0<width$}", width = USDC_DECIMALS as usize);
    let combined = format!("{whole}{padded}");
    let amount = combined.trim_start_matches('0');
    if amount.is_empty() {
        return Err(PriceError::Zero);
    }
    Ok(amount.to_string())
}

/// The inverse of [`atomic_amount`]: atomic units of a 6-decimal stablecoin as a USD decimal
/// string (`"10000"` → `"0.01"`, `"1500000"` → `"1.5"`); a value that is not a number is
/// returned as it is.
pub fn usd_price(atomic: &str) -> String {
    let Ok(units) = atomic.parse::<u128>() else {
        return atomic.to_string();
    };
    let scale = 10u128.pow(USDC_DECIMALS);
    let fraction = format!("{:0width$}", units % scale, width = USDC_DECIMALS as usize);
    match fraction.trim_end_matches('0') {
        "" => (units / scale).to_string(),
        fraction => format!("{}.{fraction}", units / scale),
    }
}

/// The terms of the tests: Base mainnet USDC, $0.01, `payTo` hardhat account #1, 120 s.
#[cfg(test)]
pub(crate) fn example_terms() -> PaymentTerms {
    PaymentTerms::new(
        "https://contacts.example.com/api/v1/extract-contact".into(),
        "eip155:8453",
        "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
        "USD Coin",
        "2",
        "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "10000".into(),
        120,
    )
}

/// The service's name in x402 catalogues (`resource.serviceName`; Bazaar: at most 32 ASCII
/// characters).
pub const SERVICE_NAME: &str = "contact-extract";

/// Catalogue tags (`resource.tags`; Bazaar: at most 5).
pub const TAGS: [&str; 5] = [
    "contacts",
    "business-data",
    "lead-generation",
    "web-extraction",
    "emails",
];

/// Everything the 402 needs, from configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaymentTerms {
    /// The single accepted requirement.
    pub requirements: PaymentRequirements,
    /// The paid resource.
    pub resource: ResourceInfo,
}

impl PaymentTerms {
    /// Builds the terms. `amount` is atomic units (see [`atomic_amount`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        resource_url: String,
        network: &str,
        asset: &str,
        asset_name: &str,
        asset_version: &str,
        pay_to: &str,
        amount: String,
        max_timeout_seconds: u64,
    ) -> PaymentTerms {
        PaymentTerms {
            requirements: PaymentRequirements {
                scheme: "exact".to_string(),
                network: network.to_string(),
                amount,
                asset: asset.to_string(),
                pay_to: pay_to.to_string(),
                max_timeout_seconds,
                extra: Eip712Extra {
                    name: asset_name.to_string(),
                    version: asset_version.to_string(),
                },
            },
            resource: ResourceInfo {
                url: resource_url,
                description: "Public business contact data (emails, phones, socials, addresses) extracted from one website".to_string(),
                mime_type: "application/json".to_string(),
                service_name: Some(SERVICE_NAME.to_string()),
                tags: Some(TAGS.iter().map(|t| (*t).to_string()).collect()),
                icon_url: None,
            },
        }
    }

    /// The `PaymentRequired` of a 402, with `error` saying why.
    pub fn payment_required(
        &self,
        error: &str,
        extensions: Option<serde_json::Value>,
    ) -> PaymentRequired {
        PaymentRequired {
            x402_version: X402_VERSION,
            error: Some(error.to_string()),
            resource: self.resource.clone(),
            accepts: vec![self.requirements.clone()],
            extensions,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn usd_price_is_the_inverse_of_atomic_amount() {
        for (atomic, usd) in [
            ("10000", "0.01"),
            ("1000000", "1"),
            ("1500000", "1.5"),
            ("1", "0.000001"),
        ] {
            assert_eq!(usd_price(atomic), usd);
            assert_eq!(atomic_amount(usd).unwrap(), atomic);
        }
    }

    /// What x402 catalogues (Bazaar) accept of a resource: a service name of at most 32 ASCII
    /// characters, at most 5 tags, a description under 500 characters.
    #[test]
    fn the_resource_fits_the_catalogues() {
        let terms = example_terms();
        let resource = &terms.resource;
        let name = resource.service_name.as_deref().unwrap();
        assert!(name.len() <= 32 && name.is_ascii(), "{name}");
        assert!(resource.tags.as_ref().unwrap().len() <= 5);
        assert!(resource.description.chars().count() < 500);
        let json = serde_json::to_value(terms.payment_required("Payment required", None)).unwrap();
        assert_eq!(json["resource"]["serviceName"], "contact-extract");
        assert_eq!(json["resource"]["tags"][0], "contacts");
    }

    use super::*;
    use crate::payment::codec;

    #[test]
    fn prices_convert_exactly() {
        assert_eq!(atomic_amount("0.01").as_deref(), Ok("10000"));
        assert_eq!(atomic_amount("0.05").as_deref(), Ok("50000"));
        assert_eq!(atomic_amount("1").as_deref(), Ok("1000000"));
        assert_eq!(atomic_amount("12.345678").as_deref(), Ok("12345678"));
        assert_eq!(atomic_amount(".5").as_deref(), Ok("500000"));
        assert_eq!(atomic_amount("0.0100").as_deref(), Ok("10000"));
        assert_eq!(atomic_amount("0.0000001"), Err(PriceError::TooPrecise));
        assert_eq!(atomic_amount("0"), Err(PriceError::Zero));
        for bad in ["", ".", "-1", "1e-2", "0,01", "abc", "1.2.3"] {
            assert_eq!(atomic_amount(bad), Err(PriceError::NotDecimal), "{bad}");
        }
    }

    #[test]
    fn the_402_header_matches_the_reference_encoder() {
        // docs/payments.md "x402 v2 in practice": the PAYMENT-REQUIRED produced by @x402/core for the same terms.
        let terms = PaymentTerms {
            resource: ResourceInfo {
                url: "https://api.example.com/v1/quote".into(),
                description: "Paid JSON API".into(),
                mime_type: "application/json".into(),
                service_name: None,
                tags: None,
                icon_url: None,
            },
            ..PaymentTerms::new(
                String::new(),
                BASE_MAINNET,
                BASE_MAINNET_USDC,
                "USD Coin",
                "2",
                "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                atomic_amount("0.01").unwrap(),
                60,
            )
        };
        let header = codec::encode(&terms.payment_required("Payment required", None));
        assert_eq!(header, "eyJ4NDAyVmVyc2lvbiI6MiwiZXJyb3IiOiJQYXltZW50IHJlcXVpcmVkIiwicmVzb3VyY2UiOnsidXJsIjoiaHR0cHM6Ly9hcGkuZXhhbXBsZS5jb20vdjEvcXVvdGUiLCJkZXNjcmlwdGlvbiI6IlBhaWQgSlNPTiBBUEkiLCJtaW1lVHlwZSI6ImFwcGxpY2F0aW9uL2pzb24ifSwiYWNjZXB0cyI6W3sic2NoZW1lIjoiZXhhY3QiLCJuZXR3b3JrIjoiZWlwMTU1Ojg0NTMiLCJhbW91bnQiOiIxMDAwMCIsImFzc2V0IjoiMHg4MzM1ODlmQ0Q2ZURiNkUwOGY0YzdDMzJENGY3MWI1NGJkQTAyOTEzIiwicGF5VG8iOiIweDcwOTk3OTcwQzUxODEyZGMzQTAxMEM3ZDAxYjUwZTBkMTdkYzc5QzgiLCJtYXhUaW1lb3V0U2Vjb25kcyI6NjAsImV4dHJhIjp7Im5hbWUiOiJVU0QgQ29pbiIsInZlcnNpb24iOiIyIn19XX0=");
        let again = codec::encode(&terms.payment_required("Payment required", None));
        assert_eq!(header, again, "deterministic");
    }
}
