fn main() {
    println!("manetlab (in progress)");
}
