//! Elo ratings for games of two or more: a game counts as every pair it ranks, each pair
//! worth 1/(players − 1) of a game, so a four-player game moves a rating about as much as a
//! duel. The arena's table and the stored ratings both use this.

/// Where every rating starts.
pub const START: f64 = 1500.0;
/// How far one game (all its pairs together) can move a rating.
pub const K: f64 = 16.0;

/// Updates `ratings` (indexed by entrant) with one game whose finish, winner first, is
/// `finish` (indices into `ratings`).
pub fn update(ratings: &mut [f64], finish: &[usize]) {
    let weight = 1.0 / (finish.len().saturating_sub(1).max(1)) as f64;
    let before = ratings.to_vec();
    for (i, &a) in finish.iter().enumerate() {
        for &b in &finish[i + 1..] {
            let (Some(&ra), Some(&rb)) = (before.get(a), before.get(b)) else { continue };
            let expected = 1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0));
            let delta = K * weight * (1.0 - expected);
            ratings[a] += delta;
            ratings[b] -= delta;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duel_between_equals_moves_half_k() {
        let mut r = [START, START];
        update(&mut r, &[1, 0]);
        assert_eq!(r, [START - K / 2.0, START + K / 2.0]);
    }

    #[test]
    fn points_are_conserved_in_a_four_player_game() {
        let mut r = [1500.0, 1600.0, 1400.0, 1550.0];
        update(&mut r, &[2, 0, 3, 1]);
        assert!((r.iter().sum::<f64>() - 6050.0).abs() < 1e-9);
        assert!(r[2] > 1400.0 && r[1] < 1600.0);
    }
}
