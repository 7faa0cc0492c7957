//! De-duplicated postal addresses, in order of first sighting: a later sighting of the same
//! address fills the parts the first one lacked. Look-ups go through ordered maps, so a page
//! with n address candidates costs O(n log n), not O(n²).

use std::collections::BTreeMap;

use crate::extract::address::{self, MarkedAddress};

/// Addresses in order of first sighting, at most `cap` of them.
#[derive(Debug)]
pub(crate) struct AddressList {
    entries: Vec<MarkedAddress>,
    /// [`address_key`] → first entry with that key.
    by_key: BTreeMap<String, usize>,
    /// Postcode as written → entries with it, in order.
    by_postcode: BTreeMap<String, Vec<usize>>,
    /// Street, letters and digits only, lower-case → first entry with it.
    by_street: BTreeMap<String, usize>,
    cap: usize,
}

/// What [`AddressList::push`] did with a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pushed {
    /// A new entry, at this index.
    Added(usize),
    /// Merged into the entry at this index (its missing parts filled).
    Merged(usize),
    /// Left out: no street and no postcode, or the list is full.
    Ignored,
}

impl AddressList {
    /// An empty list that keeps at most `cap` addresses.
    pub(crate) fn new(cap: usize) -> Self {
        AddressList {
            entries: Vec::new(),
            by_key: BTreeMap::new(),
            by_postcode: BTreeMap::new(),
            by_street: BTreeMap::new(),
            cap,
        }
    }

    /// Adds `candidate`, or merges it into the first entry it repeats: the same
    /// [`address_key`], the same postcode where one of the two has no street, or the same
    /// street where one of the two has no postcode.
    pub(crate) fn push(&mut self, candidate: MarkedAddress) -> Pushed {
        if candidate.street.is_none() && candidate.postal_code.is_none() {
            return Pushed::Ignored;
        }
        let key = address_key(&candidate);
        let by_key = self.by_key.get(&key).copied();
        let by_postcode = candidate.postal_code.as_ref().and_then(|postcode| {
            self.by_postcode
                .get(postcode)?
                .iter()
                .copied()
                .find(|i| candidate.street.is_none() || self.entries[*i].street.is_none())
        });
        let street = candidate.street.as_deref().map(squash);
        let by_street = street
            .as_ref()
            .and_then(|street| self.by_street.get(street).copied())
            .filter(|i| candidate.postal_code.is_none() || self.entries[*i].postal_code.is_none());
        let Some(index) = by_key.into_iter().chain(by_postcode).chain(by_street).min() else {
            if self.entries.len() >= self.cap {
                return Pushed::Ignored;
            }
            let index = self.entries.len();
            self.by_key.insert(key, index);
            if let Some(street) = street {
                self.by_street.entry(street).or_insert(index);
            }
            if let Some(postcode) = &candidate.postal_code {
                self.by_postcode
                    .entry(postcode.clone())
                    .or_default()
                    .push(index);
            }
            self.entries.push(candidate);
            return Pushed::Added(index);
        };
        let existing = &mut self.entries[index];
        let had_street = existing.street.is_some();
        let had_postcode = existing.postal_code.is_some();
        let old_key = address_key(existing);
        let fill = |slot: &mut Option<String>, value: &Option<String>| {
            if slot.is_none() {
                slot.clone_from(value);
            }
        };
        // Markup often gives the first street line only: the printed street with a premise
        // before or after it (`Suite 200`, `Tour Horizon`) is the whole street.
        if let (Some(first), Some(printed)) =
            (existing.street.as_deref(), candidate.street.as_deref())
        {
            if address::adds_premise(first, printed) {
                existing.street = Some(printed.to_string());
            }
        }
        fill(&mut existing.street, &candidate.street);
        fill(&mut existing.locality, &candidate.locality);
        fill(&mut existing.region, &candidate.region);
        fill(&mut existing.country, &candidate.country);
        fill(&mut existing.postal_code, &candidate.postal_code);
        if (!had_street && existing.street.is_some())
            || (!had_postcode && existing.postal_code.is_some())
        {
            // A filled-in street or postcode changes the entry's key: later sightings match
            // the new one.
            let new = address_key(existing);
            if let (false, Some(street)) = (had_street, existing.street.as_deref()) {
                self.by_street.entry(squash(street)).or_insert(index);
            }
            if let (false, Some(postcode)) = (had_postcode, existing.postal_code.clone()) {
                self.by_postcode.entry(postcode).or_default().push(index);
            }
            if self.by_key.get(&old_key) == Some(&index) {
                self.by_key.remove(&old_key);
            }
            let slot = self.by_key.entry(new).or_insert(index);
            *slot = (*slot).min(index);
        }
        Pushed::Merged(index)
    }

    /// Whether no address was kept.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The streets of the entries that have one, in order of first sighting.
    pub(crate) fn streets(&self) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter_map(|entry| entry.street.as_deref())
    }

    /// The entries, in order of first sighting.
    pub(crate) fn into_entries(self) -> Vec<MarkedAddress> {
        self.entries
    }
}

/// `text` lower-cased with its letters and digits only (`Avenida Monegros, 24` and `AVENIDA
/// MONEGROS 24` are one street).
fn squash(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Identity of an address for de-duplication: postcode (upper-case, no spaces) and the first
/// number of the street; the lower-cased street when there is no postcode.
fn address_key(a: &MarkedAddress) -> String {
    let postcode: String = a
        .postal_code
        .as_deref()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_uppercase)
        .collect();
    let street = a.street.as_deref().unwrap_or("");
    // The house number: the first word that starts with a digit (not `V1` in a name).
    let number: String = street
        .split(|c: char| c.is_whitespace() || c == ',')
        .find(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    if postcode.is_empty() {
        street.to_lowercase()
    } else {
        format!("{postcode}|{number}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(
        street: Option<&str>,
        locality: Option<&str>,
        postcode: Option<&str>,
    ) -> MarkedAddress {
        MarkedAddress {
            street: street.map(str::to_string),
            locality: locality.map(str::to_string),
            postal_code: postcode.map(str::to_string),
            ..MarkedAddress::default()
        }
    }

    #[test]
    fn repeats_fill_the_first_sighting() {
        let mut list = AddressList::new(10);
        assert_eq!(
            list.push(address(None, Some("Denver"), Some("80202"))),
            Pushed::Added(0)
        );
        assert_eq!(
            list.push(address(Some("1 Main St"), None, Some("80202"))),
            Pushed::Merged(0)
        );
        // The street filled in changed the key: another house number is another address…
        assert_eq!(
            list.push(address(Some("9 Oak St"), None, Some("80202"))),
            Pushed::Added(1)
        );
        // …and the same house number written differently is the first one again.
        assert_eq!(
            list.push(address(
                Some("1 Main Street"),
                Some("Denver"),
                Some("80 202")
            )),
            Pushed::Merged(0)
        );
        assert_eq!(
            list.push(address(Some("Main St"), None, None)),
            Pushed::Added(2)
        );
        assert_eq!(
            list.push(address(Some("main st"), Some("X"), None)),
            Pushed::Merged(2)
        );
        assert_eq!(
            list.push(address(None, Some("Denver"), None)),
            Pushed::Ignored
        );
        let entries = list.into_entries();
        assert_eq!(
            entries[0],
            address(Some("1 Main St"), Some("Denver"), Some("80202"))
        );
        assert_eq!(entries[2], address(Some("Main St"), Some("X"), None));
    }

    #[test]
    fn a_street_without_postcode_is_the_same_street_with_one() {
        let mut list = AddressList::new(10);
        assert_eq!(
            list.push(address(Some("AVENIDA MONEGROS 24"), Some("TAUSTE"), None)),
            Pushed::Added(0)
        );
        assert_eq!(
            list.push(address(
                Some("Avenida Monegros, 24"),
                Some("Tauste"),
                Some("50660")
            )),
            Pushed::Merged(0)
        );
        // The postcode filled in: later sightings with it merge by key.
        assert_eq!(
            list.push(address(Some("Av. Monegros 24"), None, Some("50660"))),
            Pushed::Merged(0)
        );
        assert_eq!(
            list.push(address(Some("Avenida Monegros 24"), None, None)),
            Pushed::Merged(0)
        );
        // The same street with two postcodes stays two addresses.
        assert_eq!(
            list.push(address(Some("Avenida Monegros 24"), None, Some("50661"))),
            Pushed::Added(1)
        );
        let entries = list.into_entries();
        assert_eq!(entries[0].postal_code.as_deref(), Some("50660"));
        assert_eq!(entries[0].street.as_deref(), Some("AVENIDA MONEGROS 24"));
    }

    #[test]
    fn a_full_list_still_merges_but_adds_nothing() {
        let mut list = AddressList::new(1);
        assert_eq!(
            list.push(address(Some("1 Main St"), None, Some("80202"))),
            Pushed::Added(0)
        );
        assert_eq!(
            list.push(address(Some("2 Main St"), None, Some("80203"))),
            Pushed::Ignored
        );
        assert_eq!(
            list.push(address(Some("1 Main St"), Some("Denver"), Some("80202"))),
            Pushed::Merged(0)
        );
        assert_eq!(list.into_entries().len(), 1);
    }

    /// The same address seen again with a premise beside its street (the markup's first
    /// street line, then the printed street): the street with the premise is kept (US, French,
    /// German).
    #[test]
    fn a_repeat_with_a_premise_beside_the_street_completes_it() {
        for (first, printed) in [
            ("600 Main Street", "600 Main Street, Suite 200 North"),
            (
                "6 avenue des Tilleuls",
                "Tour Horizon, 6 avenue des Tilleuls",
            ),
            ("Lindenweg 3", "Lindenweg 3, 2. Etage"),
        ] {
            let mut list = AddressList::new(10);
            list.push(address(Some(first), Some("Town"), Some("80202")));
            assert_eq!(
                list.push(address(Some(printed), Some("Town"), Some("80202"))),
                Pushed::Merged(0)
            );
            let entries = list.into_entries();
            assert_eq!(entries[0].street.as_deref(), Some(printed));
        }
        // Another text beside the street is no premise: the first sighting stays.
        let mut list = AddressList::new(10);
        list.push(address(Some("600 Main Street"), None, Some("80202")));
        list.push(address(
            Some("600 Main Street, Riverside"),
            None,
            Some("80202"),
        ));
        assert_eq!(
            list.into_entries()[0].street.as_deref(),
            Some("600 Main Street")
        );
    }
}
