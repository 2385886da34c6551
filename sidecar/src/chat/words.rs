//! The chat's own sentences in each language it answers in: the lead of
//! an answer, the declines, the hand-off, the figures' phrases. A question
//! in a language without its own sentences here is answered in English
//! (decision 0264).

use crate::search::text::Lang;

/// Every sentence the chat writes itself (the rest it quotes).
#[derive(Debug)]
pub struct Words {
    /// Under every answer.
    pub notice: &'static str,
    /// Added when a quote comes from the archive.
    pub historical: &'static str,
    /// The contact form's link.
    pub handoff: &'static str,
    /// An action the chat never takes.
    pub declined: &'static str,
    /// Nothing published answers.
    pub no_match: &'static str,
    /// The first sentence of an answer, by confidence.
    pub high: &'static str,
    pub medium: &'static str,
    pub low: &'static str,
    /// `{at}` and `{figures}` replaced.
    pub figures: &'static str,
    pub stale: &'static str,
    pub statistics_title: &'static str,
    /// The figures' phrases, `{n}` (and `{m}`, `{at}`) replaced.
    pub observations: &'static str,
    pub observations_30_days: &'static str,
    pub sites: &'static str,
    pub countries: &'static str,
    pub volunteers: &'static str,
    pub projects: &'static str,
    pub classifications: &'static str,
    pub latest: &'static str,
    pub no_observation: &'static str,
    /// Between groups of three digits.
    pub thousands: char,
}

const EN: Words = Words {
    notice: "Answers quote only what this service has published; nothing you ask is stored, and \
             the chat never contacts anyone or submits anything for you.",
    historical: "Passages marked historical come from the archive: they record what was done at \
                 the time and are not current advice.",
    handoff: "Ask a person through the contact form (prefilled; you review and send it)",
    declined: "This chat cannot do that: it only answers from what the service has published, \
               and it never contacts anyone, sends or submits anything on anyone's behalf. A \
               person can help: the contact form below is prefilled with your message for you \
               to review and send yourself.",
    no_match: "I found no good answer to that in what this service has published. The pages \
               below come closest; for anything else, a person can help through the contact \
               form.",
    high: "Here is what the published pages say, quoted as written.",
    medium: "These passages look like the answer, quoted as written; the page says more.",
    low: "This is the closest I found, quoted as written, and it may not answer your question: \
          check the page, or ask a person through the contact form.",
    figures: "From the platform statistics, computed at {at}: {figures}.",
    stale: " The database could not be read just now, so these are the last figures it gave.",
    statistics_title: "Live platform statistics",
    observations: "{n} observations",
    observations_30_days: "{n} observations in the last 30 days",
    sites: "{n} monitoring sites",
    countries: "{n} countries",
    volunteers: "{n} volunteers",
    projects: "{n} projects",
    classifications: "{n} classifications in {m} classification projects",
    latest: "the latest observation was made at {at}",
    no_observation: "no observation yet",
    thousands: ',',
};

const NL: Words = Words {
    notice: "Antwoorden citeren alleen wat deze dienst heeft gepubliceerd; wat u vraagt wordt \
             niet bewaard, en de chat neemt nooit contact op en verstuurt nooit iets voor u.",
    historical: "Passages die als historisch zijn gemarkeerd komen uit het archief: ze beschrijven \
                 hoe het destijds ging en zijn geen huidig advies.",
    handoff: "Vraag het een mens via het contactformulier (vooraf ingevuld; u controleert en \
              verstuurt het zelf)",
    declined: "Dat kan deze chat niet: hij antwoordt alleen uit wat de dienst heeft gepubliceerd, \
               en neemt nooit contact op en verstuurt of dient nooit iets in namens iemand. Een \
               mens kan helpen: het contactformulier hieronder is vooraf ingevuld met uw bericht, \
               zodat u het kunt controleren en zelf versturen.",
    no_match: "Ik vond daarop geen goed antwoord in wat deze dienst heeft gepubliceerd. De \
               pagina's hieronder komen het dichtst in de buurt; voor al het andere kan een mens \
               helpen via het contactformulier.",
    high: "Dit zeggen de gepubliceerde pagina's, letterlijk geciteerd.",
    medium: "Deze passages lijken het antwoord, letterlijk geciteerd; de pagina zegt meer.",
    low: "Dit kwam het dichtst in de buurt, letterlijk geciteerd, en het is misschien geen \
          antwoord op uw vraag: bekijk de pagina, of vraag het een mens via het \
          contactformulier.",
    figures: "Uit de statistieken van het platform, berekend op {at}: {figures}.",
    stale: " De database kon zojuist niet worden gelezen; dit zijn de laatste cijfers die ze gaf.",
    statistics_title: "Actuele statistieken van het platform",
    observations: "{n} waarnemingen",
    observations_30_days: "{n} waarnemingen in de afgelopen 30 dagen",
    sites: "{n} meetplekken",
    countries: "{n} landen",
    volunteers: "{n} vrijwilligers",
    projects: "{n} projecten",
    classifications: "{n} classificaties in {m} classificatieprojecten",
    latest: "de laatste waarneming is gedaan op {at}",
    no_observation: "nog geen waarneming",
    thousands: '.',
};

/// The chat's sentences in `lang`: English for a language it has none in.
pub fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::Dutch => &NL,
        Lang::English | Lang::Plain => &EN,
    }
}

impl Words {
    /// `value` with its thousands grouped (`12,345`; `12.345` in Dutch).
    pub fn number(&self, value: i64) -> String {
        let digits = value.unsigned_abs().to_string();
        let mut out = String::new();
        if value < 0 {
            out.push('-');
        }
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(self.thousands);
            }
            out.push(c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_as_each_language_writes_them() {
        assert_eq!(words(Lang::English).number(1_234_567), "1,234,567");
        assert_eq!(words(Lang::Dutch).number(1_234_567), "1.234.567");
        assert_eq!(words(Lang::Dutch).number(999), "999");
        assert_eq!(words(Lang::Plain).number(-1000), "-1,000");
    }
}
