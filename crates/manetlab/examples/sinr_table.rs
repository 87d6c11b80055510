//! Prints the SINR each 802.11 mode needs for 92 % success of a 1024-byte
//! frame (the sensitivity criterion), from manetlab's error-rate curves.
use manetlab::phy::error_rate::sinr_db_for;
use manetlab::phy::mode::{DSSS_RATES, OFDM_RATES};
use manetlab::phy::PhyStandard;

fn main() {
    println!("| standard | rate (Mbit/s) | SINR for 92 % of 1024 B (dB) | for 99 % of 1500 B (dB) |");
    println!("| --- | --- | --- | --- |");
    for (std, rates) in [(PhyStandard::Dsss, &DSSS_RATES[..]), (PhyStandard::Ofdm, &OFDM_RATES[..])] {
        for &r in rates {
            println!(
                "| {std:?} | {} | {:.1} | {:.1} |",
                r as f64 / 1e6,
                sinr_db_for(std, r, 1024, 0.92),
                sinr_db_for(std, r, 1500, 0.99)
            );
        }
    }
    let n = manetlab::phy::noise_floor_w(PhyStandard::Dsss, 7.0);
    println!("\nnoise floor, DSSS 22 MHz, NF 7 dB: {:.1} dBm", 10.0 * (n * 1e3).log10());
    let n = manetlab::phy::noise_floor_w(PhyStandard::Ofdm, 7.0);
    println!("noise floor, OFDM 20 MHz, NF 7 dB: {:.1} dBm", 10.0 * (n * 1e3).log10());
}
