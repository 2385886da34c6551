//! The vocabulary of the live observation data: what the contract's enums
//! list, what the importer accepts and what the sample data draws from.

/// A measured parameter with the unit its values are reported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    /// The value of the `parameter` field and query parameter.
    pub name: &'static str,
    /// The unit of the sample data and of the archive's protocol page.
    pub unit: &'static str,
}

/// Every measured parameter, in the contract's order.
pub const PARAMETERS: [Parameter; 8] = [
    Parameter {
        name: "nitrate",
        unit: "mg/L",
    },
    Parameter {
        name: "nitrite",
        unit: "mg/L",
    },
    Parameter {
        name: "phosphate",
        unit: "mg/L",
    },
    Parameter {
        name: "turbidity",
        unit: "NTU",
    },
    Parameter {
        name: "temperature",
        unit: "°C",
    },
    Parameter {
        name: "ph",
        unit: "pH",
    },
    Parameter {
        name: "ammonium",
        unit: "mg/L",
    },
    Parameter {
        name: "dissolved_oxygen",
        unit: "mg/L",
    },
];

/// The parameter names alone, in the same order.
pub const PARAMETER_NAMES: [&str; 8] = {
    let mut names = [""; 8];
    let mut i = 0;
    while i < PARAMETERS.len() {
        names[i] = PARAMETERS[i].name;
        i += 1;
    }
    names
};

/// Water-body types of a monitoring site.
pub const WATER_BODY_TYPES: [&str; 10] = [
    "river",
    "lake",
    "pond",
    "canal",
    "stream",
    "reservoir",
    "wetland",
    "coastal",
    "ditch",
    "other",
];

/// Quality flags of an observation.
pub const QUALITY_FLAGS: [&str; 4] = ["valid", "suspect", "invalid", "unverified"];

/// The parameter called `name`.
pub fn parameter(name: &str) -> Option<&'static Parameter> {
    PARAMETERS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_parameters() {
        assert_eq!(PARAMETER_NAMES[0], "nitrate");
        assert_eq!(PARAMETER_NAMES[7], "dissolved_oxygen");
        assert_eq!(parameter("turbidity").map(|p| p.unit), Some("NTU"));
        assert!(parameter("gold").is_none());
    }
}
