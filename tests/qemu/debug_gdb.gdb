printf "rax %#lx rbx %#lx\n", $rax, $rbx
printf "at breakpoint+%ld\n", (long)$rip - (long)&breakpoint
x/2gx $r14
p/x $ymm2.v4_int64
info all-registers
stepi
printf "stepi: at breakpoint+%ld\n", (long)$rip - (long)&breakpoint
break *copy_3
continue
printf "at copy_3+%ld, rbx %#lx\n", (long)$rip - (long)&copy_3, $rbx
delete
continue
