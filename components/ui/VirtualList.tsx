"use client";
// A virtualised, measured list that can follow its end. Following stops only on the operator's own
// scroll (wheel, touch, keys, scrollbar drag), never because content grew; items that change
// height above the viewport are compensated by the virtualizer, so reading is never disturbed.
import { useVirtualizer } from "@tanstack/react-virtual";
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
} from "react";

export interface VirtualListHandle {
  scrollToIndex(index: number): void;
  scrollToEnd(): void;
}

interface Props<T> {
  items: readonly T[];
  getKey: (item: T) => string;
  estimateSize: (item: T) => number;
  render: (item: T, index: number) => ReactNode;
  /** Keep the end in view as items arrive. */
  follow: boolean;
  /** The operator scrolled away from the end (false) or back to it (true). */
  onFollowChange?: (follow: boolean) => void;
  handle?: Ref<VirtualListHandle>;
  className?: string;
  label: string;
  testId?: string;
  empty?: ReactNode;
  /** Rows rendered beyond the viewport on each side. */
  overscan?: number;
}

const AT_END_PX = 48;
const NEVER = () => false;
const SCROLL_KEYS = new Set(["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " "]);
const USER_INTENT_MS = 600;

export function VirtualList<T>({
  items,
  getKey,
  estimateSize,
  render,
  follow,
  onFollowChange,
  handle,
  className,
  label,
  testId,
  empty,
  overscan = 4,
}: Props<T>) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const lastUserInput = useRef(0);
  // Stable callbacks: the virtualizer recomputes every item's offset when they change identity.
  const current = useRef({ items, getKey, estimateSize });
  current.current = { items, getKey, estimateSize };
  const itemKey = useCallback((i: number) => current.current.getKey(current.current.items[i]), []);
  const itemSize = useCallback((i: number) => current.current.estimateSize(current.current.items[i]), []);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: itemSize,
    getItemKey: itemKey,
    overscan,
    useFlushSync: false,
    // A followed list opens at its end, so the first render already shows the newest items.
    initialOffset: () => (follow ? Number.MAX_SAFE_INTEGER : 0),
  });
  // While reading, the virtualizer's default keeps rows that change height above the viewport from
  // moving what is under the eye. While following, the end is pinned anyway, and skipping those
  // per-row scroll writes avoids a forced layout for every row measured.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = follow ? NEVER : undefined;
  const total = virtualizer.getTotalSize();
  const innerRef = useRef<HTMLDivElement>(null);
  const following = useRef(follow);
  following.current = follow;

  // Following starts (or the list opens following): pin the end at once.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (follow && el) el.scrollTop = el.scrollHeight;
  }, [follow]);
  // While following, the end is pinned when the inner block (exactly `total` high) changes height,
  // from a ResizeObserver: it runs after the browser's own layout and before paint, so the write
  // costs no layout and no frame shows the list unpinned. Writing scrollTop in a layout effect right
  // after new rows were committed forced an extra layout of the list on every live merge.
  useEffect(() => {
    const el = scrollRef.current;
    const inner = innerRef.current;
    if (!el || !inner || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (following.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(inner);
    return () => observer.disconnect();
  }, []);

  useImperativeHandle(handle, () => ({
    scrollToIndex: (index) => virtualizer.scrollToIndex(index, { align: "auto" }),
    scrollToEnd: () => {
      const el = scrollRef.current;
      if (el) el.scrollTop = el.scrollHeight;
    },
  }));

  const markUser = useCallback(() => {
    lastUserInput.current = performance.now();
  }, []);
  // Keys count as scrolling only when they scroll: typing into a search box inside a row changes
  // the content height (and the scroll clamps), which must not flip following.
  const markUserKey = useCallback((e: KeyboardEvent) => {
    const tag = (e.target as HTMLElement).tagName;
    if (SCROLL_KEYS.has(e.key) && tag !== "INPUT" && tag !== "TEXTAREA" && tag !== "SELECT")
      lastUserInput.current = performance.now();
  }, []);

  const onScroll = () => {
    const el = scrollRef.current;
    // Only the operator's own scrolling changes following; programmatic scrolls are not even measured.
    if (!el || !onFollowChange || performance.now() - lastUserInput.current >= USER_INTENT_MS) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < AT_END_PX;
    if (atEnd !== follow) onFollowChange(atEnd);
  };

  return (
    <div
      ref={scrollRef}
      className={`vlist ${className ?? ""}`}
      onScroll={onScroll}
      onWheel={markUser}
      onTouchMove={markUser}
      onPointerDown={(e) => {
        // The scrollbar belongs to the container itself; clicks inside rows are not scrolling.
        if (e.target === e.currentTarget) markUser();
      }}
      onKeyDown={markUserKey}
      role="feed"
      aria-label={label}
      aria-busy={false}
      data-testid={testId}
      tabIndex={0}
    >
      {items.length === 0 && empty}
      <div ref={innerRef} className="vlist-inner" style={{ height: total }}>
        {virtualizer.getVirtualItems().map((v) => (
          <div
            key={v.key}
            data-index={v.index}
            ref={virtualizer.measureElement}
            className="vlist-row"
            style={{ transform: `translateY(${v.start}px)` }}
          >
            {render(items[v.index], v.index)}
          </div>
        ))}
      </div>
    </div>
  );
}
