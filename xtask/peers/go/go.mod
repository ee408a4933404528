module graphbinary-rs/peers

go 1.25
