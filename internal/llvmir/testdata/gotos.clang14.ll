; ModuleID = 'examples/gotos.c'
source_filename = "examples/gotos.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [7 x i8] c"%d %d\0A\00", align 1

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !9 {
entry:
  %retval = alloca i32, align 4
  %i = alloca i32, align 4
  %s = alloca i32, align 4
  store i32 0, i32* %retval, align 4
  %0 = bitcast i32* %i to i8*, !dbg !18
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0) #4, !dbg !18
  call void @llvm.dbg.declare(metadata i32* %i, metadata !14, metadata !DIExpression()), !dbg !19
  store i32 0, i32* %i, align 4, !dbg !19, !tbaa !20
  %1 = bitcast i32* %s to i8*, !dbg !18
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %1) #4, !dbg !18
  call void @llvm.dbg.declare(metadata i32* %s, metadata !15, metadata !DIExpression()), !dbg !24
  store i32 0, i32* %s, align 4, !dbg !24, !tbaa !20
  br label %again, !dbg !18

again:                                            ; preds = %if.then2, %entry
  call void @llvm.dbg.label(metadata !16), !dbg !25
  %2 = load i32, i32* %i, align 4, !dbg !26, !tbaa !20
  %3 = load i32, i32* %s, align 4, !dbg !27, !tbaa !20
  %add = add nsw i32 %3, %2, !dbg !27
  store i32 %add, i32* %s, align 4, !dbg !27, !tbaa !20
  %4 = load i32, i32* %i, align 4, !dbg !28, !tbaa !20
  %inc = add nsw i32 %4, 1, !dbg !28
  store i32 %inc, i32* %i, align 4, !dbg !28, !tbaa !20
  %5 = load i32, i32* %i, align 4, !dbg !29, !tbaa !20
  %cmp = icmp eq i32 %5, 7, !dbg !31
  br i1 %cmp, label %if.then, label %if.end, !dbg !32

if.then:                                          ; preds = %again
  br label %out, !dbg !33

if.end:                                           ; preds = %again
  %6 = load i32, i32* %i, align 4, !dbg !34, !tbaa !20
  %cmp1 = icmp slt i32 %6, 100, !dbg !36
  br i1 %cmp1, label %if.then2, label %if.end3, !dbg !37

if.then2:                                         ; preds = %if.end
  br label %again, !dbg !38

if.end3:                                          ; preds = %if.end
  store i32 -1, i32* %s, align 4, !dbg !39, !tbaa !20
  br label %out, !dbg !40

out:                                              ; preds = %if.end3, %if.then
  call void @llvm.dbg.label(metadata !17), !dbg !41
  %7 = load i32, i32* %i, align 4, !dbg !42, !tbaa !20
  %8 = load i32, i32* %s, align 4, !dbg !43, !tbaa !20
  %call = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([7 x i8], [7 x i8]* @.str, i64 0, i64 0), i32 noundef %7, i32 noundef %8), !dbg !44
  %9 = bitcast i32* %s to i8*, !dbg !45
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %9) #4, !dbg !45
  %10 = bitcast i32* %i to i8*, !dbg !45
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %10) #4, !dbg !45
  ret i32 0, !dbg !46
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #1

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.label(metadata) #2

declare i32 @printf(i8* noundef, ...) #3

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #1

attributes #0 = { nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { argmemonly nofree nosync nounwind willreturn }
attributes #2 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #3 = { "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "Debian clang version 14.0.6", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "examples/gotos.c", directory: "/src", checksumkind: CSK_MD5, checksum: "da3750c0d4f89c59c5b475792c3c4118")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 1}
!8 = !{!"Debian clang version 14.0.6"}
!9 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 4, type: !10, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !13)
!10 = !DISubroutineType(types: !11)
!11 = !{!12}
!12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!13 = !{!14, !15, !16, !17}
!14 = !DILocalVariable(name: "i", scope: !9, file: !1, line: 5, type: !12)
!15 = !DILocalVariable(name: "s", scope: !9, file: !1, line: 5, type: !12)
!16 = !DILabel(scope: !9, name: "again", file: !1, line: 6)
!17 = !DILabel(scope: !9, name: "out", file: !1, line: 14)
!18 = !DILocation(line: 5, column: 3, scope: !9)
!19 = !DILocation(line: 5, column: 7, scope: !9)
!20 = !{!21, !21, i64 0}
!21 = !{!"int", !22, i64 0}
!22 = !{!"omnipotent char", !23, i64 0}
!23 = !{!"Simple C/C++ TBAA"}
!24 = !DILocation(line: 5, column: 14, scope: !9)
!25 = !DILocation(line: 6, column: 1, scope: !9)
!26 = !DILocation(line: 7, column: 8, scope: !9)
!27 = !DILocation(line: 7, column: 5, scope: !9)
!28 = !DILocation(line: 8, column: 4, scope: !9)
!29 = !DILocation(line: 9, column: 7, scope: !30)
!30 = distinct !DILexicalBlock(scope: !9, file: !1, line: 9, column: 7)
!31 = !DILocation(line: 9, column: 9, scope: !30)
!32 = !DILocation(line: 9, column: 7, scope: !9)
!33 = !DILocation(line: 10, column: 5, scope: !30)
!34 = !DILocation(line: 11, column: 7, scope: !35)
!35 = distinct !DILexicalBlock(scope: !9, file: !1, line: 11, column: 7)
!36 = !DILocation(line: 11, column: 9, scope: !35)
!37 = !DILocation(line: 11, column: 7, scope: !9)
!38 = !DILocation(line: 12, column: 5, scope: !35)
!39 = !DILocation(line: 13, column: 5, scope: !9)
!40 = !DILocation(line: 13, column: 3, scope: !9)
!41 = !DILocation(line: 14, column: 1, scope: !9)
!42 = !DILocation(line: 15, column: 21, scope: !9)
!43 = !DILocation(line: 15, column: 24, scope: !9)
!44 = !DILocation(line: 15, column: 3, scope: !9)
!45 = !DILocation(line: 17, column: 1, scope: !9)
!46 = !DILocation(line: 16, column: 3, scope: !9)
