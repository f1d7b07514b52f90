"use client";
// A value that follows its source at most once per `ms`: the first change shows at once, a burst
// settles on its last value. Lets the playhead run at 60 fps while heavy lists redraw at ~10 Hz.
import { useEffect, useRef, useState } from "react";

export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const lastAt = useRef(0);
  useEffect(() => {
    const wait = lastAt.current + ms - performance.now();
    if (wait <= 0) {
      lastAt.current = performance.now();
      setShown(value);
      return;
    }
    const timer = setTimeout(() => {
      lastAt.current = performance.now();
      setShown(value);
    }, wait);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return shown;
}
