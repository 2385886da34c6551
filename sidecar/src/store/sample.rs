//! A deterministic, realistic sample data set for the embedded default, so a
//! fresh `scripts/up` shows live data at once, and a large one for
//! benchmarks.
//!
//! The sample tells the content's story: the observations are Water Watch
//! readings, and Water Watch ended in June 2024 (`content/service/
//! projects.toml`), so every reading falls in the four years before
//! [`WATER_WATCH_END`], whatever the day. What still grows is Riverlens:
//! its classifications run from the platform's start
//! ([`RIVERLENS_START`]) to the end day, more of them each year.
//!
//! Everything derives from a fixed seed through splitmix64 and from the end
//! day: the same size and end day give the same rows on every machine. The
//! end day is the start of the current UTC day when the store is first
//! filled; it bounds the classifications and volunteers' joining dates.

use super::{NewObservation, Site};

/// How much sample data to fill an empty database with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleSize {
    /// None: the database stays empty until an import.
    None,
    /// 400 sites in 8 countries, 40 000 observations over Water Watch's
    /// last 4 years, 8 000 Riverlens classifications.
    Default,
    /// 1 000 sites, 1 000 000 observations: for benchmarks.
    Large,
}

impl SampleSize {
    fn sites(self) -> usize {
        match self {
            SampleSize::None => 0,
            SampleSize::Default => 400,
            SampleSize::Large => 1_000,
        }
    }

    pub fn observations(self) -> usize {
        match self {
            SampleSize::None => 0,
            SampleSize::Default => 40_000,
            SampleSize::Large => 1_000_000,
        }
    }

    fn volunteers(self) -> usize {
        match self {
            SampleSize::None => 0,
            SampleSize::Default => 1_200,
            SampleSize::Large => 25_000,
        }
    }

    fn classifications(self) -> usize {
        match self {
            SampleSize::None => 0,
            SampleSize::Default => 8_000,
            SampleSize::Large => 100_000,
        }
    }
}

/// Years of observations before [`WATER_WATCH_END`].
const YEARS: i64 = 4;
/// 2024-07-01T00:00:00Z: Water Watch's last readings were taken in June 2024.
pub const WATER_WATCH_END: i64 = 1_719_792_000;
/// 2018-04-01T00:00:00Z: Water Watch's first volunteers joined.
const WATER_WATCH_START: i64 = 1_522_540_800;
/// 2021-09-01T00:00:00Z: Riverlens opened.
pub const RIVERLENS_START: i64 = 1_630_454_400;
const SEED: u64 = 0x5eed_0fda_7a00_0001;

/// The start of the current UTC day, in Unix seconds.
pub fn default_end() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    now - now % 86_400
}

/// splitmix64: tiny, fast, and good enough for sample data.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Countries with a rough land box (min lat, max lat, min lon, max lon).
const COUNTRIES: [(&str, [f64; 4]); 8] = [
    ("NL", [51.3, 53.3, 4.3, 6.9]),
    ("BE", [50.0, 51.2, 3.2, 5.9]),
    ("DE", [47.8, 54.3, 6.5, 14.5]),
    ("FR", [43.5, 50.5, -0.5, 7.0]),
    ("GB", [50.8, 55.5, -3.5, 0.5]),
    ("IE", [51.9, 54.9, -9.5, -6.3]),
    ("DK", [55.0, 57.3, 8.5, 12.2]),
    ("ES", [37.5, 42.8, -6.5, -0.5]),
];

const NAME_START: [&str; 12] = [
    "Alder", "Birch", "Clay", "Deer", "Elm", "Fen", "Grey", "Hazel", "Iron", "Mill", "Oak",
    "Willow",
];
const NAME_END: [&str; 10] = [
    "brook", "ford", "mere", "water", "bridge", "marsh", "field", "haven", "dale", "wick",
];

/// Water-body types, weighted by how often volunteers sample them.
const WATER_BODIES: [&str; 14] = [
    "river",
    "river",
    "river",
    "stream",
    "stream",
    "lake",
    "lake",
    "pond",
    "pond",
    "canal",
    "ditch",
    "reservoir",
    "wetland",
    "coastal",
];

/// The content's projects, and Riverlens's collections, the projects
/// that collect classifications.
const PROJECTS: [(&str, &str, bool); 9] = [
    ("water-watch", "Water Watch", false),
    ("nutrient-baseline", "Nutrient Baseline Study", false),
    ("open-observations", "Open Observations", false),
    ("schools-water-lab", "Schools Water Lab", false),
    ("riverlens-water-colour", "Riverlens: water colour", true),
    ("riverlens-algal-blooms", "Riverlens: algal blooms", true),
    (
        "riverlens-floating-litter",
        "Riverlens: floating litter",
        true,
    ),
    (
        "riverlens-bank-vegetation",
        "Riverlens: bank vegetation",
        true,
    ),
    (
        "riverlens-camera-traps",
        "Riverlens: riverbank camera traps",
        true,
    ),
];

/// The whole sample, generated lazily in batches.
#[derive(Debug, Clone)]
pub struct Sample {
    pub size: SampleSize,
    /// Unix seconds; every classification and volunteer is before it
    /// (observations end at [`WATER_WATCH_END`]).
    pub end: i64,
}

/// Counted rows that are not observations.
#[derive(Debug, Clone)]
pub struct Extras {
    /// `(id, joined_at)`.
    pub volunteers: Vec<(i64, i64)>,
    /// `(id, name, collects_classifications)`.
    pub projects: Vec<(&'static str, &'static str, bool)>,
    /// `(id, project, volunteer, created_at)`.
    pub classifications: Vec<(i64, &'static str, i64, i64)>,
}

impl Sample {
    pub fn new(size: SampleSize, end: i64) -> Sample {
        Sample { size, end }
    }

    /// The first day of observations.
    fn start(&self) -> i64 {
        WATER_WATCH_END - YEARS * 365 * 86_400
    }

    pub fn sites(&self) -> Vec<Site> {
        let mut rng = Rng::new(SEED);
        (0..self.size.sites())
            .map(|i| {
                let (country, [lat0, lat1, lon0, lon1]) = COUNTRIES[i % COUNTRIES.len()];
                let water = *rng.pick(&WATER_BODIES);
                let name = format!(
                    "{}{} {}",
                    rng.pick(&NAME_START),
                    rng.pick(&NAME_END),
                    capitalise(water)
                );
                Site {
                    id: format!("{}-{:04}", country.to_ascii_lowercase(), i + 1),
                    name,
                    country: country.to_owned(),
                    water_body_type: water.to_owned(),
                    latitude: round6(rng.range(lat0, lat1)),
                    longitude: round6(rng.range(lon0, lon1)),
                    // A few sites lie on private land: kept, never published.
                    public: rng.below(50) != 0,
                }
            })
            .collect()
    }

    pub fn extras(&self) -> Extras {
        let mut rng = Rng::new(SEED ^ 0xe7);
        let end = self.end.max(RIVERLENS_START + 86_400);
        let span = (end - WATER_WATCH_START) as f64;
        let volunteers = (1..=self.size.volunteers() as i64)
            .map(|id| (id, WATER_WATCH_START + (rng.unit() * span) as i64))
            .collect();
        let classifying: Vec<&'static str> = PROJECTS.iter().filter(|p| p.2).map(|p| p.0).collect();
        // The square root of a uniform draw: a density rising linearly from
        // the platform's start, so each month has more than the one before.
        let span = (end - RIVERLENS_START) as f64;
        let classifications = (1..=self.size.classifications() as i64)
            .map(|id| {
                (
                    id,
                    *rng.pick(&classifying),
                    1 + rng.below(self.size.volunteers().max(1)) as i64,
                    (RIVERLENS_START + (rng.unit().sqrt() * span) as i64).min(end - 1),
                )
            })
            .collect();
        Extras {
            volunteers,
            projects: PROJECTS.to_vec(),
            classifications,
        }
    }

    /// Calls `each` with batches of at most `batch` observations, ids
    /// 1, 2, … in order.
    pub fn observations<E>(
        &self,
        sites: &[Site],
        batch: usize,
        mut each: impl FnMut(&[NewObservation]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut rng = Rng::new(SEED ^ 0x0b5);
        let (start, span) = (self.start(), WATER_WATCH_END - self.start());
        let volunteers = self.size.volunteers().max(1);
        let mut buf = Vec::with_capacity(batch);
        for id in 1..=self.size.observations() as i64 {
            // Sites differ in how busy they are: square the uniform draw.
            let u = rng.unit();
            let site = &sites[((u * u) * sites.len() as f64) as usize];
            // Minutes, between 07:00 and 19:00 local-ish daylight.
            let day = (rng.unit() * (span / 86_400) as f64) as i64;
            let minute = 420 + rng.below(720) as i64;
            let observed_at = start + day * 86_400 + minute * 60;
            let parameter = *rng.pick(&super::PARAMETERS);
            let season =
                ((observed_at - start) as f64 / (365.25 * 86_400.0) * std::f64::consts::TAU).sin();
            let (value, unit, method) = measurement(&mut rng, parameter, season);
            let flag = match rng.below(100) {
                0 => "invalid",
                1..=4 => "suspect",
                5..=14 => "unverified",
                _ => "valid",
            };
            buf.push(NewObservation {
                id,
                site_id: site.id.clone(),
                observed_at,
                parameter: parameter.to_owned(),
                value,
                unit: unit.to_owned(),
                method: method.to_owned(),
                quality_flag: flag.to_owned(),
                volunteer_id: Some(1 + rng.below(volunteers) as i64),
                source: None,
                source_id: None,
            });
            if buf.len() == batch {
                each(&buf)?;
                buf.clear();
            }
        }
        if !buf.is_empty() {
            each(&buf)?;
        }
        Ok(())
    }
}

/// A plausible value, unit and method for a parameter; `season` runs from
/// -1 (winter) to 1 (summer).
fn measurement(rng: &mut Rng, parameter: &str, season: f64) -> (f64, &'static str, &'static str) {
    let (value, method) = match parameter {
        "nitrate" => (
            rng.range(0.2, 25.0) * (1.0 - 0.3 * season),
            "colorimetric test kit",
        ),
        "nitrite" => (rng.range(0.0, 0.5), "colorimetric test kit"),
        "phosphate" => (
            rng.range(0.02, 1.0) * (1.0 + 0.3 * season),
            "colorimetric test kit",
        ),
        "turbidity" => (rng.range(5.0, 120.0), "turbidity tube"),
        "temperature" => (
            12.0 + 8.0 * season + rng.range(-3.0, 3.0),
            "digital thermometer",
        ),
        "ph" => (rng.range(6.2, 8.8), "pH test strip"),
        "ammonium" => (rng.range(0.0, 2.0), "colorimetric test kit"),
        _ => (9.0 - 2.5 * season + rng.range(-1.5, 1.5), "optical probe"),
    };
    let unit = contract::vocabulary::parameter(parameter).map_or("", |p| p.unit);
    ((value * 100.0).round() / 100.0, unit, method)
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_plausible() {
        let a = Sample::new(SampleSize::Default, 1_700_000_000 - 1_700_000_000 % 86_400);
        let sites = a.sites();
        assert_eq!(sites, a.sites());
        assert_eq!(sites.len(), 400);
        let mut first = Vec::new();
        a.observations(&sites, 1000, |b| {
            if first.is_empty() {
                first = b.to_vec();
            }
            for o in b {
                assert!(o.observed_at < WATER_WATCH_END && o.observed_at >= a.start());
                assert!(o.value.is_finite());
            }
            Ok::<_, ()>(())
        })
        .unwrap();
        let mut again = Vec::new();
        a.observations(&sites, 1000, |b| {
            again.extend_from_slice(b);
            Err(())
        })
        .unwrap_err();
        assert_eq!(first, again);
    }

    #[test]
    fn readings_end_in_june_2024_and_classifications_grow_to_the_end_day() {
        let end = 1_795_000_000 - 1_795_000_000 % 86_400;
        let a = Sample::new(SampleSize::Default, end);
        let mut latest = 0;
        a.observations(&a.sites(), 5000, |b| {
            latest = b.iter().map(|o| o.observed_at).max().unwrap().max(latest);
            Ok::<_, ()>(())
        })
        .unwrap();
        assert!(latest < WATER_WATCH_END);
        assert!(
            latest > WATER_WATCH_END - 30 * 86_400,
            "readings run to the end"
        );
        let extras = a.extras();
        let c = &extras.classifications;
        assert!(c.iter().all(|c| (RIVERLENS_START..end).contains(&c.3)));
        let last_30 = c.iter().filter(|c| c.3 >= end - 30 * 86_400).count();
        let first_30 = c
            .iter()
            .filter(|c| c.3 < RIVERLENS_START + 30 * 86_400)
            .count();
        assert!(last_30 > 2 * first_30.max(1), "{first_30} then {last_30}");
        assert!(extras.volunteers.iter().all(|v| v.1 < end));
    }
}
